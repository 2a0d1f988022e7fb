"""The production example (examples/machine-production.yaml: identity, plan with accept_terms, boot diagnostics,
public IP, NSG, ASG, load balancer pool, encryption at host, disk encryption set, capacity reservation and
proximity placement groups) through `azmc` on the real stack (dev server, `azmc worker`, emulator): applied, Running,
its serial console read with `azmc describe --console`, deleted with nothing left, its public IP included."""

import subprocess
import sys

from tests.e2e.stack import ROOT, Stack, cli_env, wait_until

EXAMPLE, MACHINE = "examples/machine-production.yaml", "azmc-demo/prod1"


def _azmc(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**cli_env(stack.address, stack.codec_url), "AZMC_AZURE_ENDPOINT": stack.worker.emulator_url}
    return subprocess.run([sys.executable, "-m", "cli", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)


def _left(stack: Stack) -> list[str]:
    return sorted(r["name"] for r in stack.emulator.control.resources() if r["name"].startswith("prod1"))


def test_the_production_example_runs_shows_its_console_and_leaves_nothing(stack: Stack) -> None:
    applied = _azmc(stack, "apply", "-f", EXAMPLE)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    wait_until(lambda: "Running" in _azmc(stack, "describe", MACHINE).stdout, 90, "prod1 Running")
    made = _left(stack)
    assert {"prod1", "prod1-nic", "prod1-pip"} <= set(made) and len(made) == 5, made  # and its two disks
    console = _azmc(stack, "describe", MACHINE, "--console")
    assert console.returncode == 0 and "prod1 login:" in console.stdout, console.stdout + console.stderr

    deleted = _azmc(stack, "delete", MACHINE, "--wait")
    assert deleted.returncode == 0, deleted.stdout + deleted.stderr
    assert _left(stack) == []
