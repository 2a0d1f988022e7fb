"""Read a spec document (a Machine, the default, or a MachinePool) from a JSON or YAML file; explain a problem
in one line naming the file and the field."""

import json
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from models.bootstrap import BOOTSTRAP_FIELDS
from models.durations import CHECK_BOUNDS
from models.pool import PoolSpec
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


# `kind:` of a document: a document without one is a Machine (what `azmc apply` always took).
MACHINE_KIND = "Machine"
POOL_KIND = "MachinePool"
KINDS: dict[str, type[MachineSpec] | type[PoolSpec]] = {MACHINE_KIND: MachineSpec, POOL_KIND: PoolSpec}


def load_document(path: Path) -> MachineSpec | PoolSpec:
    """A MachineSpec (`kind: Machine` or no kind) or a PoolSpec (`kind: MachinePool`)."""
    data = _parse(path)
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected an object with the MachineSpec fields, or `kind: {POOL_KIND}` with the "
                        "pool's (see docs/pools.md)")
    kind = data.pop("kind", MACHINE_KIND)
    model = KINDS.get(kind) if isinstance(kind, str) else None
    if model is None:
        shown = json.dumps(kind) if not isinstance(kind, str) else repr(kind)
        raise SpecError(f"{path}: kind {shown} is not one azmc knows: {MACHINE_KIND} (the default) or {POOL_KIND}")
    template = data.get("template")
    if model is PoolSpec and isinstance(template, dict):
        _read_data_files(path, template)  # the template's custom_data_file, relative to this file too
    elif model is MachineSpec:
        _read_data_files(path, data)
    try:
        return model.model_validate(data, context=CHECK_BOUNDS)
    except ValidationError as error:
        what = "MachinePool" if model is PoolSpec else "MachineSpec"
        raise SpecError(f"{path}: {describe_validation_error(error, what)}") from None


def load_spec(path: Path) -> MachineSpec:
    """A Machine document only (the demo and tests build machines)."""
    spec = load_document(path)
    if not isinstance(spec, MachineSpec):
        raise SpecError(f"{path}: a {POOL_KIND} document where a {MACHINE_KIND} is expected")
    return spec
