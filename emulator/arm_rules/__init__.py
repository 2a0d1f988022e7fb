"""ARM's request validation, one home for every rule: body size and JSON (`json_body`), resource names
(`names`), tags (`tags`), JSON types per resource type (`shapes`) and the ids a body links to (`linked_ids`);
the marketplace's ids (`marketplace`) are checked where a request uses them. Each broken rule is a 400 (413 for
size) in ARM's error shape with Azure's code, raised before any backend sees the request.

Independent of azmc's own `models/arm_names.py` on purpose: the emulator stands for Azure, so azmc's
checks are tested against these rules rather than sharing (and repeating) their assumptions."""

from __future__ import annotations

from typing import Any

from emulator.arm_rules.json_body import MAX_BODY_BYTES, parse, too_large
from emulator.arm_rules.linked_ids import check_linked_ids
from emulator.arm_rules.names import check_computer_name, check_name
from emulator.arm_rules.shapes import check_shape
from emulator.arm_rules.tags import check_tags
from emulator.errors import ArmError

__all__ = ["MAX_BODY_BYTES", "check_request", "parse", "too_large"]

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
