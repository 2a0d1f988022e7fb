"""Read a MachineSpec from a JSON or YAML file and explain the first problem in one line naming the field."""

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from models.bootstrap import BOOTSTRAP_FIELDS
from models.spec import MachineSpec
from models.validation import describe_validation_error


class SpecError(ValueError):
    """The spec file cannot be used; the message names the file and the field."""


def _parse(path: Path) -> Any:
    try:
        text = path.read_text()
    except OSError as error:
        raise SpecError(f"{path}: cannot read ({error.strerror})") from None
    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            return yaml.safe_load(text)
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise SpecError(f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except yaml.YAMLError as error:
        where = getattr(error, "problem_mark", None)
        line = f" (line {where.line + 1})" if where else ""
        raise SpecError(f"{path}: not valid YAML{line}") from None


def _read_data_files(path: Path, data: dict[str, Any]) -> None:
    """`custom_data_file:` / `user_data_file:` name a file relative to the spec file; its text becomes the field."""
    for field in BOOTSTRAP_FIELDS:
        name = data.pop(f"{field}_file", None)
        if name is None:
            continue
        if field in data:
            raise SpecError(f"{path}: give {field} or {field}_file, not both")
        if not isinstance(name, str) or not name:
            raise SpecError(f"{path}: {field}_file: a file name, relative to the spec file")
        target = path.parent / name
        try:
            data[field] = target.read_text()
        except (OSError, UnicodeDecodeError) as error:
            reason = getattr(error, "strerror", None) or "not UTF-8 text"
            raise SpecError(f"{path}: {field}_file: cannot read {str(target)!r} ({reason})") from None


def load_spec(path: Path) -> MachineSpec:
    data = _parse(path)
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected an object with the MachineSpec fields (see `azmc schema`)")
    _read_data_files(path, data)
    try:
        return MachineSpec.model_validate(data)
    except ValidationError as error:
        raise SpecError(f"{path}: {describe_validation_error(error)}") from None
