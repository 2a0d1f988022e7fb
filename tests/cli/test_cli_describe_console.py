"""`azmc describe RG/NAME --console`: the serial console log's tail through the real SDK's
retrieveBootDiagnosticsData and a GET of the log's URI, from the emulator; refused in one line when boot
diagnostics are off."""

from azure.mgmt.compute import models as cm
from typer.testing import CliRunner, Result

from cli.commands import app
from emulator.seed import SEED_RESOURCE_GROUP
from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients, sdk_clients


def _vm(clients: SyncClients, emulator: EmulatorHandle, name: str, boot_diagnostics: bool) -> None:
    body = vm_body(name, make_nic(clients, emulator, f"{name}-nic"))
    if boot_diagnostics:
        body.diagnostics_profile = cm.DiagnosticsProfile(boot_diagnostics=cm.BootDiagnostics(enabled=True))
    clients.compute.virtual_machines.begin_create_or_update(RG, name, body).result()


def _describe(emulator: EmulatorHandle, *argv: str) -> Result:
    env = {"AZMC_AZURE_ENDPOINT": emulator.url, "AZMC_AZURE_SUBSCRIPTION_ID": emulator.subscription_id}
    return CliRunner().invoke(app, ["describe", *argv], env=env)


def test_console_prints_the_serial_log_tail(emulator: EmulatorHandle) -> None:
    emulator.settings(boot_seconds=0)
    clients = sdk_clients(emulator)
    try:
        _vm(clients, emulator, "vm1", boot_diagnostics=True)
    finally:
        clients.close()
    tail = _describe(emulator, f"{SEED_RESOURCE_GROUP}/vm1", "--console", "--lines", "3")
    assert tail.exit_code == 0, tail.output
    assert tail.stdout.splitlines() == ["Ubuntu 24.04.1 LTS vm1 ttyS0", "", "vm1 login: "]
    whole = _describe(emulator, "vm1", "-g", SEED_RESOURCE_GROUP, "--console")
    assert whole.exit_code == 0 and whole.stdout.startswith("[    0.000000] Linux version")
    assert emulator.requests()["by_operation"]["virtualMachines.retrieveBootDiagnosticsData"] == 2


def test_console_without_boot_diagnostics_says_so(emulator: EmulatorHandle) -> None:
    clients = sdk_clients(emulator)
    try:
        _vm(clients, emulator, "vm2", boot_diagnostics=False)
    finally:
        clients.close()
    refused = _describe(emulator, f"{SEED_RESOURCE_GROUP}/vm2", "--console")
    assert refused.exit_code == 1
    assert "Boot diagnostics is not enabled" in refused.output
