"""`azmc apply -f pool.yaml` and `azmc pool get|describe|scale|delete` on a real Temporal dev server, emulator
and `azmc worker` process: the README's commands as written, what the pool's validator refuses, and the demo."""

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner, Result

from cli.commands import app
from models.naming import POOL_TAG
from tests.e2e.readme import commands
from tests.e2e.stack import CODEC_KEYS, ROOT, Stack, running_stack, wait_until
from tests.e2e.test_readme import _run

EXAMPLE = yaml.safe_load((Path(__file__).parents[2] / "examples" / "pool.yaml").read_text())


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with running_stack(tmp_path_factory.mktemp("pool-cli")) as running:
        yield running


def azmc(stack: Stack, *argv: str) -> Result:
    return CliRunner().invoke(app, [*argv, "--temporal-address", stack.address], env={"AZMC_CODEC_KEYS": CODEC_KEYS})


def _apply(stack: Stack, tmp_path: Path, **changes: object) -> Result:
    path = tmp_path / "pool.yaml"
    path.write_text(yaml.safe_dump({**EXAMPLE, **changes}))
    return azmc(stack, "apply", "-f", str(path))


def _row(stack: Stack, argv: tuple[str, ...] = ("pool", "get"), name: str = "web") -> str:
    listed = azmc(stack, *argv)
    assert listed.exit_code == 0, listed.output
    return next((line.strip() for line in listed.stdout.splitlines() if line.strip().startswith(f"{name} ")), "")


def _pool_vms(stack: Stack) -> list[str]:
    return [r["name"] for r in stack.emulator.control.resources()
            if r["type"].endswith("virtualMachines") and (r.get("tags") or {}).get(POOL_TAG) == "web"]


def _as_written(stack: Stack, argv: list[str]) -> Result:
    """A README `azmc` command, its file relative to the repository (where the README's reader stands)."""
    args = [str(ROOT / arg) if previous == "-f" else arg for previous, arg in zip(["", *argv], argv, strict=False)]
    return azmc(stack, *args[1:])


def _machine_rows(described: str) -> list[str]:
    return re.findall(r"^\W*web-\w{5} +Running ", described, flags=re.MULTILINE)


def test_pool_commands_as_in_the_readme(stack: Stack, tmp_path: Path) -> None:
    apply, get, describe, scale, delete = commands("pool-azmc-cli")
    created = _as_written(stack, apply)
    assert created.exit_code == 0, created.output
    assert f"pool azmc-demo/web created: {EXAMPLE['replicas']} machines of revision" in created.stdout
    assert "pool azmc-demo/web unchanged" in _as_written(stack, apply).stdout  # the same file again
    listing = tuple(get[1:])  # `azmc pool get` as the README writes it
    wait_until(lambda: " 3/3/3/" in _row(stack, listing) and "Stable" in _row(stack, listing), 60, "3 Running")
    described = _as_written(stack, describe)
    assert described.exit_code == 0, described.output
    assert "desired 3, current 3, ready 3, updated 3" in described.stdout
    assert len(_machine_rows(described.stdout)) == 3 and len(_pool_vms(stack)) == 3

    refused = azmc(stack, "pool", "scale", "web", "--replicas", "5000")  # the pool's validator says no
    assert refused.exit_code == 1
    line = refused.stderr.strip()
    assert len(line.splitlines()) == 1 and "pool pool/azmc-demo/web refused:" in line and "replicas" in line, line
    assert "Traceback" not in refused.stderr

    scaled = _as_written(stack, scale)
    assert scaled.exit_code == 0 and "pool/azmc-demo/web accepted replicas 5" in scaled.stdout, scaled.output
    wait_until(lambda: " 5/5/5/" in _row(stack, listing), 60, "5 machines Running")
    assert len(_machine_rows(_as_written(stack, describe).stdout)) == 5

    # The file with another template: a rolling update to a new revision; the same again changes nothing.
    changed = _apply(stack, tmp_path, replicas=5, template={**EXAMPLE["template"], "tags": {"team": "web"}})
    assert changed.exit_code == 0 and "changed: template (revision" in changed.stdout, changed.output
    assert "applied in place" in " ".join(changed.stdout.split()), changed.output  # a tag change: no rollout
    unchanged = _apply(stack, tmp_path, replicas=5, template={**EXAMPLE["template"], "tags": {"team": "web"}})
    assert "unchanged" in unchanged.stdout, unchanged.output

    deleted = _as_written(stack, delete)  # mid-rollout: every machine goes, old and new
    assert deleted.exit_code == 0, deleted.output
    assert "pool/azmc-demo/web deleted: none of its machines is left in Azure" in deleted.stdout
    assert _pool_vms(stack) == [] and not [r for r in stack.emulator.control.resources()
                                           if (r.get("tags") or {}).get(POOL_TAG) == "web"]
    wait_until(lambda: "no pools" in azmc(stack, "pool", "get").stdout, 30, "the pool to leave the open list")
    assert "Deleted" in azmc(stack, "pool", "get", "--all").stdout


@pytest.mark.parametrize("argv", [["pool", "describe", "web' OR 'a'='a"], ["pool", "delete", "pool/rg/web/x"],
                                  ["pool", "scale", "web", "-g", "rg' OR 1=1", "--replicas", "1"]])
def test_invalid_pool_names_are_refused_before_any_connection(argv: list[str]) -> None:
    result = CliRunner().invoke(app, [*argv, "--temporal-address", "127.0.0.1:9"])
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 1 and len(lines) == 1 and "Temporal" not in lines[0], result.output
    assert "is not valid" in lines[0] or "is not NAME" in lines[0]


async def test_the_pool_demo_heals_its_failed_creation_and_leaves_nothing(stack: Stack) -> None:
    from temporalio.client import Client

    from cli.demo.pool_scenario import PoolDemo, demo_pool_spec
    from emulator.seed import SEED_SUBSCRIPTION
    from tests.e2e.stack import STACK_CONVERTER
    from workers.settings import TASK_QUEUE

    client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
    printed: list[str] = []
    spec = demo_pool_spec(SEED_SUBSCRIPTION, token="t3st")
    result = await PoolDemo(client, stack.emulator.control, spec, TASK_QUEUE,
                            lambda _status, lines: printed.extend(lines)).run(timeout_s=90)
    assert result.ok and result.healed and len(result.hit) == 1, result
    unlucky = result.phases[result.hit[0]]
    assert unlucky.index("CrashLoopBackOff") < unlucky.index("Running")  # failed, then created again
    assert any(line.startswith("pool: roll: rev ") and "rolled out" in line for line in printed)
    assert any(f"{result.hit[0]}" in line and "CrashLoopBackOff" in line for line in printed)
    assert len(result.phases) == 6 and result.leftovers == []  # 3 old, 3 new machines; all gone


def _tagged(stack: Stack, pool: str, kind: str = "") -> list[str]:
    return sorted(r["name"] for r in stack.emulator.control.resources()
                  if (r.get("tags") or {}).get(POOL_TAG) == pool and r["type"].endswith(kind))


def _described(stack: Stack, name: str) -> dict:
    described = azmc(stack, "pool", "describe", name, "--json")
    assert described.exit_code == 0, described.output
    return json.loads(described.stdout)


def test_a_pool_believes_only_its_machines_and_azure(stack: Stack, tmp_path: Path) -> None:
    """Issue 30's case as an operator meets it: a `machine_phase` notice sent with the `temporal` CLI changes
    nothing, and a machine whose workflow is terminated is replaced; `azmc pool delete --wait` then says none
    of the pool's machines is left only once Azure, read by the pool's tag, has none."""
    assert _apply(stack, tmp_path, name="db", replicas=2, min_ready="0s").exit_code == 0
    wait_until(lambda: " 2/2/2/2 " in _row(stack, name="db"), 90, "2 machines Running")
    first, second = sorted(m["name"] for m in _described(stack, "db")["machines"])

    _run(["temporal", "workflow", "signal", "-w", "pool/azmc-demo/db", "--name", "machine_phase",
          "--input", json.dumps({"name": first, "phase": "Deleted"})], stack)
    def settled(status: dict) -> bool:  # the notice is listed as ignored, or (the bug) the pool acted on it
        return bool(status.get("ignored_notices")) or sorted(m["name"] for m in status["machines"]) != [first, second]

    wait_until(lambda: settled(_described(stack, "db")), 30, "the notice to be ignored")
    status = _described(stack, "db")
    assert sorted(m["name"] for m in status["machines"]) == [first, second]
    ignored = [entry["description"] for entry in status["ignored_notices"]]
    assert any(f"{first} said Deleted: its workflow runs, Running" in entry for entry in ignored), ignored
    assert _tagged(stack, "db", "virtualMachines") == [first, second]  # no replacement was made
    assert "Ignored notices" in azmc(stack, "pool", "describe", "db").stdout

    _run(["temporal", "workflow", "terminate", "-w", f"machine/azmc-demo/{second}", "--reason", "by hand"], stack)
    wait_until(lambda: second not in {m["name"] for m in _described(stack, "db")["machines"]}
               and " 2/2/2/2 " in _row(stack, name="db"), 90, "the terminated machine to be replaced")
    assert second in _tagged(stack, "db", "virtualMachines")  # nobody deleted what it made

    deleted = azmc(stack, "pool", "delete", "db", "--wait")
    assert deleted.exit_code == 0, deleted.output
    assert "pool/azmc-demo/db deleted: none of its machines is left in Azure" in deleted.stdout
    assert _tagged(stack, "db") == []


def test_apply_changes_every_setting_of_a_running_pool(stack: Stack, tmp_path: Path) -> None:
    assert _apply(stack, tmp_path, name="api", replicas=1).exit_code == 0
    settings = {"max_replacements": 3, "max_unhealthy": 2, "preserve_failed": 1, "preserve_timeout": "2h",
                "min_ready": "1m", "strategy": {"max_surge": 2, "max_unavailable": 0}}
    changed = _apply(stack, tmp_path, name="api", replicas=1, **settings)
    assert changed.exit_code == 0, changed.output
    said = " ".join(changed.stdout.split())  # the console wraps the line at its width
    assert ("changed: strategy.max_surge 1 -> 2, max_replacements 1 -> 3, max_unhealthy 40% -> 2, "
            "preserve_failed 0 -> 1, preserve_timeout 96h -> 2h, min_ready 30s -> 1m") in said, said
    again = _apply(stack, tmp_path, name="api", replicas=1, **settings)
    assert "pool azmc-demo/api unchanged" in again.stdout, again.stdout
    assert _described(stack, "api")["settings"] == {
        "strategy": {"max_surge": 2, "max_unavailable": 0}, "max_replacements": 3, "max_unhealthy": 2,
        "preserve_failed": 1, "preserve_timeout": "2h", "min_ready": "1m"}
    assert "max_replacements 3" in azmc(stack, "pool", "describe", "api").stdout
    resumed = azmc(stack, "pool", "resume-repairs", "api")  # nothing is held: the pool says so, and records it
    assert resumed.exit_code == 0 and "pool pool/azmc-demo/api resumed repairs" in resumed.stdout, resumed.output
    assert any(op["kind"] == "resume_repairs" for op in _described(stack, "api")["recent_operations"])
    assert azmc(stack, "pool", "delete", "api", "--wait").exit_code == 0


def test_a_pool_applied_again_after_its_workflow_was_terminated_runs_its_replicas_once(
        stack: Stack, tmp_path: Path) -> None:
    """Issue 37's case: `azmc apply`, `temporal workflow terminate`, `azmc apply` again: the new pool adopts the two
    machines the terminated one started (a visibility listing on a real server), and runs no others."""
    assert _apply(stack, tmp_path, name="rp", replicas=2, min_ready="0s").exit_code == 0
    wait_until(lambda: " 2/2/2/2 " in _row(stack, name="rp"), 90, "2 machines Running")
    machines = sorted(m["name"] for m in _described(stack, "rp")["machines"])
    _run(["temporal", "workflow", "terminate", "-w", "pool/azmc-demo/rp", "--reason", "by hand"], stack)

    again = _apply(stack, tmp_path, name="rp", replicas=2, min_ready="0s")
    assert again.exit_code == 0 and "pool azmc-demo/rp created" in again.stdout, again.output
    wait_until(lambda: " 2/2/2/2 " in _row(stack, name="rp") and "Stable" in _row(stack, name="rp"), 90,
               "the pool to settle")
    status = _described(stack, "rp")
    assert sorted(m["name"] for m in status["machines"]) == machines == _tagged(stack, "rp", "virtualMachines")
    assert any(op["kind"] == "adopt" for op in status["recent_operations"]), status["recent_operations"]
    assert azmc(stack, "pool", "delete", "rp", "--wait").exit_code == 0
    assert _tagged(stack, "rp") == []
