"""`azmc apply -f` takes `kind: Machine` (the default) and `kind: MachinePool`, YAML or JSON; anything else,
or a pool spec that does not validate, is one line naming the file and the field, before any Temporal call."""

import json
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from cli.commands import app
from cli.spec_file import load_document
from models.pool import PoolSpec
from models.spec import MachineSpec

EXAMPLES = Path(__file__).parents[2] / "examples"
POOL = yaml.safe_load((EXAMPLES / "pool.yaml").read_text())
MACHINE = json.loads((EXAMPLES / "machine.json").read_text())
NO_TEMPORAL = ["--temporal-address", "127.0.0.1:9"]  # nothing listens: getting past validation fails to connect


def _apply(tmp_path: Path, document: object, suffix: str = ".yaml") -> tuple[int, str]:
    path = tmp_path / f"doc{suffix}"
    path.write_text(yaml.safe_dump(document) if suffix == ".yaml" else json.dumps(document))
    result = CliRunner().invoke(app, ["apply", "-f", str(path), *NO_TEMPORAL])
    return result.exit_code, result.stderr


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_pool_document_validates_then_needs_temporal(tmp_path: Path, suffix: str) -> None:
    code, stderr = _apply(tmp_path, POOL, suffix)
    assert code == 1 and "cannot reach Temporal at 127.0.0.1:9" in _one_line(stderr)


def test_kinds_load_as_their_specs(tmp_path: Path) -> None:
    pool = load_document(EXAMPLES / "pool.yaml")
    assert isinstance(pool, PoolSpec) and pool.replicas == 3 and pool.template.resource_group == "azmc-demo"
    for document in (MACHINE, {**MACHINE, "kind": "Machine"}):  # no kind is a Machine, as before
        path = tmp_path / "m.json"
        path.write_text(json.dumps(document))
        machine = load_document(path)
        assert isinstance(machine, MachineSpec) and machine.name == MACHINE["name"]


@pytest.mark.parametrize("kind", ["MachineDeployment", "machinepool", 7, None, "[bold]x[/bold]"])
def test_unknown_kind_is_one_line_naming_the_kinds(tmp_path: Path, kind: object) -> None:
    code, stderr = _apply(tmp_path, {**POOL, "kind": kind})
    line = _one_line(stderr)
    assert code == 1 and "doc.yaml: kind" in line and "Machine (the default) or MachinePool" in line
    if kind == "[bold]x[/bold]":
        assert "[bold]x[/bold]" in line  # printed as written, not as markup


@pytest.mark.parametrize(
    ("changes", "field", "hint"),
    [
        ({"replicas": -1}, "replicas:", "greater than or equal to 0"),
        ({"name": "Web_1"}, "name:", "lower-case letters"),
        ({"strategy": {"max_surge": 0, "max_unavailable": 0}}, "strategy:", "cannot both be 0"),
        ({"template": {**POOL["template"], "name": "vm1"}}, "template:", "must not be set in a template"),
        ({"template": {**POOL["template"], "location": 5}}, "template.location:", "string"),
        ({"colour": "blue"}, "colour:", "unknown field"),
    ],
)
def test_bad_pool_spec_is_one_line_naming_the_field(tmp_path: Path, changes: dict, field: str, hint: str) -> None:
    code, stderr = _apply(tmp_path, {**POOL, **changes})
    line = _one_line(stderr)
    assert code == 1 and "doc.yaml: invalid MachinePool:" in line and field in line and hint in line, line
    assert "Temporal" not in line


def test_a_machine_document_with_pool_fields_is_refused_as_a_machine(tmp_path: Path) -> None:
    code, stderr = _apply(tmp_path, {k: v for k, v in POOL.items() if k != "kind"})
    line = _one_line(stderr)
    assert code == 1 and "invalid MachineSpec" in line and "replicas: unknown field" in line


def test_a_pool_template_reads_its_bootstrap_file_relative_to_the_pool_file(tmp_path: Path) -> None:
    (tmp_path / "boot").mkdir()
    (tmp_path / "boot" / "init.yaml").write_text("#cloud-config\nruncmd: [echo pool]\n")
    path = tmp_path / "pool.yaml"
    path.write_text(yaml.safe_dump({**POOL, "template": {**POOL["template"], "custom_data_file": "boot/init.yaml"}}))
    pool = load_document(path)
    assert isinstance(pool, PoolSpec) and pool.template.custom_data == "#cloud-config\nruncmd: [echo pool]\n"


def test_the_json_example_is_the_yaml_example() -> None:
    assert load_document(EXAMPLES / "pool.json") == load_document(EXAMPLES / "pool.yaml")
