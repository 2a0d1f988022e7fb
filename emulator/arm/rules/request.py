"""`check_request`: every ARM rule a write meets, in the order ARM applies them (the package says why)."""

from __future__ import annotations

from typing import Any

from emulator.arm.errors import ArmError
from emulator.arm.rules.linked_ids import check_linked_ids
from emulator.arm.rules.names import check_computer_name, check_name
from emulator.arm.rules.shapes import check_shape
from emulator.arm.rules.tags import check_tags

# The path parameter that names the resource a PUT creates, per resource type.
_NAMED_BY = {"resourceGroups": "rg"}


def check_request(resource_type: str, verb: str, params: dict[str, str], body: dict[str, Any]) -> None:
    """Refuse a write ARM would refuse. Reads and deletes pass: a bad name there is simply not found."""
    if verb not in ("put", "patch", "query"):
        return
    try:
        if verb == "put":
            check_name(resource_type, params.get(_NAMED_BY.get(resource_type, "name"), ""))
        check_shape(resource_type, verb, body)
        check_linked_ids(resource_type, body)
        if resource_type != "resourceGraph":
            check_tags(body.get("tags"))
        props = body.get("properties") or {}
        if resource_type == "virtualNetworks":
            for subnet in props.get("subnets") or []:
                check_name("subnets", subnet["name"])
        if resource_type == "virtualMachines" and verb == "put":
            check_computer_name(props)
    except ArmError as error:
        if resource_type == "resourceGraph":  # the graph answers its own shape: BadRequest with the cause
            raise ArmError(400, "BadRequest", error.message,
                           details=[{"code": error.code, "message": error.message}]) from None
        raise
