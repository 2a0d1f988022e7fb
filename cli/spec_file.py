"""Read a MachineSpec from a JSON or YAML file and explain the first problem in one line naming the field."""

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

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


def load_spec(path: Path) -> MachineSpec:
    data = _parse(path)
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected an object with the MachineSpec fields (see `azmc schema`)")
    try:
        return MachineSpec.model_validate(data)
    except ValidationError as error:
        raise SpecError(f"{path}: {describe_validation_error(error)}") from None
