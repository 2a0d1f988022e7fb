"""The README's commands, run as written against a real dev server, emulator and `azmc worker` process."""

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

from temporalio.client import Client

from cli.processes import temporal_binary
from tests.e2e.readme import commands, sh_blocks
from tests.e2e.stack import ROOT, STACK_CONVERTER, Stack, cli_env, wait_until

# Blocks and where they are exercised; a new README block without a test fails here.
EXERCISED = {
    "make": "make demo: tests/e2e/test_demo.py runs `azmc demo` (the Makefile's demo recipe); make test: .ci/run; "
            "make test-fast: its `fast` tier (docs/testing.md)",
    "temporal-cli": "test_temporal_cli_lifecycle_as_in_the_readme",
    "azmc-cli": "test_azmc_cli_as_in_the_readme",
    "compose": "tests/test_compose.py::test_readme_compose_commands_name_real_services",
    "pool-temporal-cli": "tests/e2e/test_readme_pools.py::test_pool_with_the_temporal_cli_as_in_the_readme",
    "pool-azmc-cli": "tests/cli/test_cli_pool_commands.py::test_pool_commands_as_in_the_readme",
}


def _static_summary(stack: Stack, wf_id: str) -> str:
    async def read() -> str:
        client = await Client.connect(stack.address, data_converter=STACK_CONVERTER)
        return await (await client.get_workflow_handle(wf_id).describe()).static_summary() or ""

    return asyncio.run(read())


# The server holds one query a workflow while its task is pending and refuses the others with this; the SDK's
# client asks again by itself (cli/machines.py, QUERY_WAIT), the `temporal` CLI does not, so an operator does.
_BUSY = "Workflow is busy"


def _run(argv: list[str], stack: Stack, check: bool = True) -> str:
    program = {"temporal": [temporal_binary()], "azmc": [sys.executable, "-m", "cli"]}[argv[0]]
    for _ in range(20):
        done = subprocess.run([*program, *argv[1:]], cwd=ROOT, env=cli_env(stack.address, stack.codec_url),
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        if done.returncode == 0 or _BUSY not in done.stderr:
            break
        time.sleep(0.5)  # as an operator would ask again
    if check:
        assert done.returncode == 0, f"{' '.join(argv)[:120]}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _refused(argv: list[str], stack: Stack) -> str:
    """A command that must fail: its stderr."""
    done = subprocess.run([temporal_binary(), *argv[1:]], cwd=ROOT, env=cli_env(stack.address, stack.codec_url),
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode != 0, done.stdout
    return done.stderr


def _leftovers(stack: Stack, machine: str) -> list[str]:
    return [r["name"] for r in stack.emulator.control.resources() if r["name"].startswith(f"{machine}-") or
            r["name"] == machine]  # fmt: skip


def test_every_readme_block_is_exercised() -> None:
    assert sorted(marker for marker, _ in sh_blocks()) == sorted(EXERCISED)
    makefile = (ROOT / "Makefile").read_text()
    assert "$(BIN)/azmc demo" in makefile and "$(BIN)/pytest" in makefile


def test_temporal_cli_lifecycle_as_in_the_readme(stack: Stack) -> None:
    start, query, listing, update, signal, result = commands("temporal-cli")
    spec = json.loads(start[start.index("--input") + 1])
    wf_id = start[start.index("--workflow-id") + 1]
    assert wf_id == f"machine/{spec['resource_group']}/{spec['name']}"
    assert start[start.index("--id-conflict-policy") + 1] == "Fail"
    assert start[start.index("--id-reuse-policy") + 1] == "AllowDuplicate" and "--fail-existing" in start

    assert wf_id in _run(start, stack)
    assert "already running" in _refused(start, stack)  # started twice: refused while the machine runs
    assert _static_summary(stack, wf_id) == start[start.index("--static-summary") + 1]
    wait_until(lambda: '"phase":"Running"' in _run(query, stack), 60, "the machine to be Running")
    status = json.loads(_run(query, stack).split("QueryResult", 1)[1])
    assert status["inventory"]["provider_id"].endswith(f"/virtualMachines/{spec['name']}")
    assert status["inventory"]["nic_names"] == [f"{spec['name']}-nic"]
    assert sorted(_leftovers(stack, spec["name"])) == sorted([spec["name"], f"{spec['name']}-nic",
                                                              f"{spec['name']}-os-disk"])  # fmt: skip
    wait_until(lambda: wf_id in _run(listing, stack), 30, "visibility to list the Running machine")
    new_tags = json.loads(update[update.index("--input") + 1])["tags"]
    updated = _run(update, stack)
    added = sorted(f"tags.{key}" for key in new_tags.keys() - spec["tags"].keys())
    assert added and f"changed:[{' '.join(added)}]" in updated and "updated in place" in updated, updated
    vm = next(r for r in stack.emulator.control.resources() if r["name"] == spec["name"])
    assert {key: vm["tags"].get(key) for key in new_tags} == new_tags  # the running VM, re-tagged in place
    assert vm["tags"]["azmc-owner"].endswith(f"/{wf_id}")

    assert "succeeded" in _run(signal, stack).lower()
    final = _run(result, stack)  # blocks until the workflow completes
    assert "COMPLETED" in final and '"phase":"Deleted"' in final
    assert '"phase":"Deleted"' in _run(query, stack)
    assert _leftovers(stack, spec["name"]) == []
    assert wf_id not in _run(listing, stack)


def test_azmc_cli_as_in_the_readme(stack: Stack) -> None:
    apply, get, describe, delete, get_all, schema = commands("azmc-cli")
    spec_file = Path(ROOT / apply[apply.index("-f") + 1])
    name = describe[-1]
    assert f"name: {name}" in spec_file.read_text()

    assert f"machine/azmc-demo/{name} is Running" in _run(apply, stack)
    assert f"machine azmc-demo/{name} unchanged" in _run(apply, stack)  # the running machine has this spec
    assert _static_summary(stack, f"machine/azmc-demo/{name}").startswith(f"Machine {name}: ")  # the UI's summary
    listed = _run(get, stack)
    assert name in listed and "Running" in listed
    described = _run(describe, stack)
    assert "Running" in described and f"{name}-nic" in described and f"{name}-data-0-data-disk" in described
    assert "deleted: nothing of it is left" in _run(delete, stack)
    assert _leftovers(stack, name) == []
    assert "Deleted" in _run(get_all, stack)
    assert json.loads(_run(schema, stack))["title"] == "MachineSpec"
