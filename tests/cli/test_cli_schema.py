"""`azmc schema` prints MachineSpec's JSON Schema, usable to validate specs outside azmc."""

import json
import re
from pathlib import Path

import yaml
from typer.testing import CliRunner

from cli.commands import app
from models.pool import PoolSpec

EXAMPLES = Path(__file__).parents[2] / "examples"


def test_schema_is_json_schema_of_machine_spec() -> None:
    result = CliRunner().invoke(app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert schema["title"] == "MachineSpec"
    assert {"name", "resource_group", "location", "image", "subnet_id", "ssh_public_key"} <= set(schema["required"])
    # One of vm_sizes (the list) or vm_size (older specs: a list of one) is required.
    assert schema["oneOf"] == [{"required": ["vm_sizes"]}, {"required": ["vm_size"]}]
    assert {"vm_sizes", "vm_size", "zones", "zone"} <= set(schema["properties"])
    assert schema["additionalProperties"] is False
    assert "DataDisk" in schema["$defs"]


def test_every_example_uses_only_schema_fields() -> None:
    schema = json.loads(CliRunner().invoke(app, ["schema"]).stdout)
    for path in [*EXAMPLES.glob("*.json"), *EXAMPLES.glob("*.yaml")]:
        spec = yaml.safe_load(path.read_text())
        if spec.get("kind") == "MachinePool":  # a pool's template is a MachineSpec but its name and pool
            assert set(spec) - {"kind"} <= set(PoolSpec.model_fields), path
            spec = {**spec["template"], "name": spec["name"], "resource_group": spec["resource_group"]}
        assert set(spec) <= set(schema["properties"]), path
        assert set(schema["required"]) <= set(spec), path


def test_names_and_ids_carry_azures_rules_as_patterns() -> None:
    schema = json.loads(CliRunner().invoke(app, ["schema"]).stdout)
    plan, image = schema["$defs"]["PurchasePlan"]["properties"], schema["$defs"]["ImageReference"]["properties"]
    fields, subnet_id = schema["properties"], json.loads((EXAMPLES / "machine.json").read_text())["subnet_id"]
    nsg_id = subnet_id.split("/virtualNetworks")[0] + "/networkSecurityGroups/nsg1"
    cases = [  # (the field's schema, a value Azure takes, one it refuses)
        (plan["publisher"], "Canonical", "../.."), (plan["product"], "ubuntu-24_04-lts", "\u00fc\u202e"),
        (plan["name"], "server", "p'|x"), (image["version"], "latest", "1/../2"), (fields["name"], "vm1", "VM_1"),
        (fields["subnet_id"], subnet_id, subnet_id + "/x"), (fields["network_security_group_id"], nsg_id,
                                                              nsg_id.replace("nsg1", "a'b|c")),
    ]
    for field, taken, refused in cases:
        assert re.search(field["pattern"], taken), (field, taken)
        assert not re.search(field["pattern"], refused), (field, refused)
    assert re.search(fields["network_security_group_id"]["pattern"], "")  # none
    assert plan["publisher"]["maxLength"] == 50 and fields["resource_group"]["maxLength"] == 90
