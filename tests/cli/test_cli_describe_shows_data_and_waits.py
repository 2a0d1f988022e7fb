"""`azmc describe` shows what an operator needs when data or a deletion is at stake."""

from datetime import UTC, datetime

from rich.console import Console

from cli.render import describe_view
from models.inventory import DataDiskRef, Inventory
from models.status import MachineStatus, Phase, Stage, StalledStep


def test_describe_shows_the_data_disks_and_every_step_waiting_to_retry() -> None:
    status = MachineStatus(
        name="vm1", resource_group="azmc-demo", phase=Phase.TERMINATING,
        inventory=Inventory(nic_names=["vm1-nic"], disk_names=["vm1-data-0-data-disk"], data_disks=[
            DataDiskRef(name="vm1-data-0-data-disk", lun=0, unique_id="7c0e-5a1d")]),
        stalled=[StalledStep(stage=Stage.INITIATE_NIC_DELETION, description="delete NIC vm1-nic", failures=2,
                             error="Conflict: NicInUse: in use",
                             next_retry_at=datetime(2026, 1, 1, 12, 0, 40, tzinfo=UTC))],
    )
    console = Console(width=200, record=True)
    console.print(describe_view(status, "machine/azmc-demo/vm1"))
    text = console.export_text()
    assert "data disk vm1-data-0-data-disk (uniqueId 7c0e-5a1d)" in text
    assert ("Waiting to retry  InitiateNICDeletion: delete NIC vm1-nic (failure 2, next 2026-01-01T12:00:40+00:00):"
            " Conflict: NicInUse: in use") in text
