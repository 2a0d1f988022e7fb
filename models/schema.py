"""JSON Schema of the MachineSpec, for `azmc schema` and editors."""

from typing import Any

from models.arm_names import VM_SIZE
from models.spec import ZONE_PATTERN, MachineSpec


def spec_json_schema() -> dict[str, Any]:
    """The schema of what `MachineLifecycle` accepts as input (validation mode: what a user writes)."""
    schema = MachineSpec.model_json_schema(mode="validation")
    schema.setdefault("$schema", "https://json-schema.org/draft/2020-12/schema")
    # vm_size / zone: the single-value forms every older spec uses, still accepted as a list of one.
    schema["properties"]["vm_size"] = {"type": "string", **VM_SIZE.json_schema(),
                                       "description": "one size: the same as vm_sizes with one entry"}
    schema["properties"]["zone"] = {"type": "string", "pattern": ZONE_PATTERN,
                                    "description": "one zone: the same as zones with one entry"}
    schema["required"] = [field for field in schema["required"] if field != "vm_sizes"]
    schema["oneOf"] = [{"required": ["vm_sizes"]}, {"required": ["vm_size"]}]
    return schema
