"""JSON Schema of the MachineSpec, for `azmc schema` and editors."""

from typing import Any

from models.spec import MachineSpec


def spec_json_schema() -> dict[str, Any]:
    """The schema of what `MachineLifecycle` accepts as input (validation mode: what a user writes)."""
    schema = MachineSpec.model_json_schema(mode="validation")
    schema.setdefault("$schema", "https://json-schema.org/draft/2020-12/schema")
    return schema
