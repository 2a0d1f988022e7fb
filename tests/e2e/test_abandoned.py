"""A machine whose workflow an operator terminated is not invisible: `azmc get` lists it as abandoned,
with what of it exists in Azure (real dev server, emulator, `azmc worker` and `azmc` processes)."""

import subprocess
import sys

from tests.e2e.machines import abandon_one, spec
from tests.e2e.stack import ROOT, Stack, cli_env, wait_until


def _azmc_get(stack: Stack, azure: bool) -> subprocess.CompletedProcess[str]:
    env = cli_env(stack.address, stack.codec_url)
    env.pop("AZMC_AZURE_ENDPOINT", None)
    if azure:
        env["AZMC_AZURE_ENDPOINT"] = stack.emulator.url  # the worker's Azure settings
    done = subprocess.run([sys.executable, "-m", "cli", "get"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=60)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def _row(output: str, name: str) -> str:
    return next((line for line in output.splitlines() if line.split()[:1] == [name]), "")


def test_terminated_machine_is_listed_as_abandoned_with_its_azure_resources(stack: Stack) -> None:
    kept, dropped = spec("kept-vm"), spec("dropped-vm", data_disks=1)

    abandon_one(stack, kept, dropped)

    def listed_abandoned() -> bool:
        return "Abandoned" in _row(_azmc_get(stack, azure=True).stdout, dropped.name)

    wait_until(listed_abandoned, 30, "azmc get to list the terminated machine as abandoned")
    output = _azmc_get(stack, azure=True).stdout
    row = _row(output, dropped.name)
    for resource in (f"VM {dropped.name}", f"{dropped.name}-nic", *dropped.all_disk_names()):
        assert resource in row, (resource, row)
    assert "Running" in _row(output, kept.name) and "Abandoned" not in _row(output, kept.name)
    assert "azmc apply" in output  # says what to do about it

    without_azure = _azmc_get(stack, azure=False)
    assert _row(without_azure.stdout, dropped.name) == ""
    assert "abandoned resources not checked" in without_azure.stderr and "AZMC_AZURE_ENDPOINT" in without_azure.stderr
