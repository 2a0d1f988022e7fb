"""`azmc apply` validates the spec locally: one line naming the file and the field, exit 1, no Temporal call."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.commands import app

EXAMPLE = json.loads((Path(__file__).parents[2] / "examples" / "machine.json").read_text())
# Nothing listens here: if apply got past validation it would fail with "cannot reach Temporal" instead.
NO_TEMPORAL = ["--temporal-address", "127.0.0.1:9"]


def _apply(tmp_path: Path, content: str, suffix: str = ".json") -> tuple[int, str]:
    spec = tmp_path / f"spec{suffix}"
    spec.write_text(content)
    result = CliRunner().invoke(app, ["apply", "-f", str(spec), *NO_TEMPORAL])
    return result.exit_code, result.stderr


def _with(**changes: object) -> str:
    return json.dumps({**EXAMPLE, **changes})


@pytest.mark.parametrize(
    ("content", "field", "hint"),
    [
        (_with(name="VM_1"), "name:", "lower-case letters"),
        (_with(data_disks=[{"lun": 1, "size_gb": 8}, {"lun": 1, "size_gb": 8}]), "data_disks:", "duplicate lun 1"),
        (_with(colour="blue"), "colour:", "unknown field"),
        (_with(os_disk={"size_gb": "big"}), "os_disk.size_gb:", "integer"),
        (json.dumps({k: v for k, v in EXAMPLE.items() if k != "subnet_id"}), "subnet_id:", "required field is missing"),
        (_with(timeouts={"creation": "0s"}), "timeouts.creation:", "below the minimum: give a duration from 1s"),
    ],
)
def test_invalid_spec_is_one_line_naming_the_field(tmp_path: Path, content: str, field: str, hint: str) -> None:
    code, stderr = _apply(tmp_path, content)
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert field in lines[0] and hint in lines[0]
    assert "spec.json" in lines[0]
    assert "Traceback" not in stderr and "Temporal" not in stderr


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    code, stderr = _apply(tmp_path, "name: vm1\n  bad: [indent\n", suffix=".yaml")
    assert code == 1
    assert "not valid YAML (line" in stderr and len(stderr.strip().splitlines()) == 1


def test_json_syntax_error_names_the_position(tmp_path: Path) -> None:
    code, stderr = _apply(tmp_path, '{"name": "vm1",,}')
    assert code == 1
    assert "not valid JSON (line 1, column" in stderr


def test_missing_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["apply", "-f", str(tmp_path / "nope.json"), *NO_TEMPORAL])
    assert result.exit_code == 1
    assert "cannot read" in result.stderr


MACHINE_EXAMPLES = sorted(p.name for p in (Path(__file__).parents[2] / "examples").glob("machine*"))


def test_every_machine_example_is_checked() -> None:
    assert len(MACHINE_EXAMPLES) >= 6, MACHINE_EXAMPLES


@pytest.mark.parametrize("example", MACHINE_EXAMPLES)
def test_valid_examples_pass_validation_and_then_need_temporal(example: str) -> None:
    path = Path(__file__).parents[2] / "examples" / example
    result = CliRunner().invoke(app, ["apply", "-f", str(path), *NO_TEMPORAL])
    assert result.exit_code == 1
    assert "cannot reach Temporal at 127.0.0.1:9" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# Issue 37's hostile-operator probe: a plan that puts a path and a right-to-left override into an ARM URL, and a
# security group whose name Azure refuses (accepted before, it failed only at the NIC PUT, in CrashLoopBackOff).
HOSTILE_PLAN = {"name": "p'|x", "publisher": "../..", "product": "\u00fc\u202e"}
NSG_PARENT = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/azmc-demo/providers/" \
             "Microsoft.Network/networkSecurityGroups"


def _one_line(code: int, stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert code == 1 and len(lines) == 1, stderr
    assert "Temporal" not in stderr and "\u202e" not in stderr, stderr  # refused before any call, shown escaped
    return lines[0]


def test_the_probes_plan_is_refused_before_any_call_naming_the_fields_with_the_values_escaped(tmp_path: Path) -> None:
    line = _one_line(*_apply(tmp_path, _with(plan=HOSTILE_PLAN, accept_terms=True)))
    assert "plan.publisher: marketplace publisher id '../..'" in line
    assert "plan.product: marketplace offer id '\u00fc\\u202e'" in line and "plan.name: marketplace plan" in line


def test_a_security_group_name_azure_refuses_is_refused_before_any_call(tmp_path: Path) -> None:
    line = _one_line(*_apply(tmp_path, _with(network_security_group_id=f"{NSG_PARENT}/a'b|c")))
    assert "network_security_group_id: network security group name \"a'b|c\"" in line


def test_a_pool_file_s_template_is_refused_by_the_same_rules(tmp_path: Path) -> None:
    template = {k: v for k, v in EXAMPLE.items() if k not in ("name", "pool")}
    pool = {"kind": "MachinePool", "name": "web", "resource_group": "azmc-demo", "replicas": 1,
            "template": {**template, "plan": HOSTILE_PLAN, "accept_terms": True}}
    line = _one_line(*_apply(tmp_path, json.dumps(pool)))
    assert "template.plan.publisher: marketplace publisher id '../..'" in line


def test_a_file_name_with_invisible_characters_is_shown_escaped(tmp_path: Path) -> None:
    missing = tmp_path / "spec\u202e\x1b[2J.json"
    result = CliRunner().invoke(app, ["apply", "-f", str(missing), *NO_TEMPORAL])
    line = _one_line(result.exit_code, result.stderr)
    assert "spec\\u202e\\x1b[2J.json: cannot read" in line and "\x1b" not in result.stderr
