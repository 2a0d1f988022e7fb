"""One way to say what pydantic refused, for the CLI, the worker's settings and the workflow alike."""

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from models.visible_text import visible


def problem(item: ErrorDetails) -> str:
    """The message of one refused field, in words a user can act on."""
    if item["type"] == "extra_forbidden":
        return "unknown field (see `azmc schema` for the accepted fields)"
    if item["type"] == "missing":
        return "required field is missing"
    return item["msg"].removeprefix("Value error, ")


def field_path(item: ErrorDetails, whole: str = "(whole spec)") -> str:
    """`data_disks.1.lun`: where the refused value sits; `whole` when it is the object itself. A key the user wrote
    (an unknown field, a tag) is shown with its invisible characters escaped."""
    return visible(".".join(str(part) for part in item["loc"])) or whole


def describe_validation_error(error: ValidationError, what: str = "MachineSpec") -> str:
    """`invalid MachineSpec: name: lower-case letters...; data_disks.1.lun: duplicate lun 1` - every field."""
    return f"invalid {what}: " + "; ".join(f"{field_path(item)}: {problem(item)}" for item in error.errors())
