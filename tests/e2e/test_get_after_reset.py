"""`azmc get --all` after `temporal workflow reset` shows what is true: the run the reset ended says how it ended
("Terminated (was Running)"), never "Running" beside a closed workflow; the live run is listed first (real
dev server, emulator, `azmc worker` and `azmc` processes)."""

import asyncio
import subprocess
import sys

from cli.processes import temporal_binary
from models.naming import workflow_id
from tests.e2e.machines import running, spec
from tests.e2e.stack import ROOT, Stack, cli_env, wait_until


def _azmc(stack: Stack, *argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "cli", *argv], cwd=ROOT, env=cli_env(stack.address),
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rows(output: str, name: str) -> list[str]:
    return [" ".join(line.split()) for line in output.splitlines() if line.split()[:1] == [name]]


def test_get_all_after_a_reset_shows_the_old_run_as_ended_not_running(stack: Stack) -> None:
    item = spec("reset-vm")
    wf_id = workflow_id(item.resource_group, item.name)

    asyncio.run(running(stack, item))
    subprocess.run([temporal_binary(), "workflow", "reset", "--workflow-id", wf_id, "--type", "FirstWorkflowTask",
                    "--reason", "operator reset", "--address", stack.address],
                   check=True, capture_output=True, timeout=30)  # fmt: skip

    def both_runs_listed() -> bool:
        rows = _rows(_azmc(stack, "get", "--all"), item.name)
        return len(rows) == 2 and "Terminated" in rows[1]

    wait_until(both_runs_listed, 60, "azmc get --all to list the reset's two runs")
    live, ended = _rows(_azmc(stack, "get", "--all"), item.name)
    assert ended.startswith(f"{item.name} {item.resource_group} Terminated (was Running) ") and ended.endswith(
        " Terminated"), ended
    assert live.startswith(f"{item.name} {item.resource_group} ") and live.endswith(" Running"), live
    assert "(was" not in live

    _azmc(stack, "delete", item.name, "--wait")
    done = _rows(_azmc(stack, "get", "--all"), item.name)
    assert sorted(row.split()[2] for row in done) == ["Deleted", "Terminated"], done
