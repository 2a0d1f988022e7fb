"""Pure functions of the workflow: backoff arithmetic and the current-details text."""

from datetime import UTC, datetime, timedelta

from models.errors import ErrorType
from models.inventory import DataDiskRef, Inventory
from models.spec import MachineSpec
from models.status import Stage, StalledStep
from tests.workflows.helpers import spec_dict
from workflows.machine.details import render_details
from workflows.machine.state import LifecycleState
from workflows.policies import cleanup_backoff, creation_backoff


def test_creation_backoff_doubles_from_5s_to_3m() -> None:
    delays = [creation_backoff(n, ErrorType.TRANSIENT, None).total_seconds() for n in range(1, 10)]
    assert delays == [5, 10, 20, 40, 80, 160, 180, 180, 180]
    assert creation_backoff(500, ErrorType.CONFLICT, None) == timedelta(minutes=3)


def test_capacity_waits_ten_minutes_and_azure_hints_win_when_longer() -> None:
    assert creation_backoff(1, ErrorType.CAPACITY_EXHAUSTED, None) == timedelta(minutes=10)
    assert creation_backoff(1, ErrorType.NIC_RESERVED, timedelta(seconds=180)) == timedelta(seconds=180)
    assert creation_backoff(7, ErrorType.THROTTLED, timedelta(seconds=2)) == timedelta(minutes=3)


def test_cleanup_waits_ten_minutes_for_capacity_and_honours_azure_hints_up_to_that() -> None:
    """Deletion stages and compensations: the capacity wait comes from the workflow, not from the activity."""
    assert cleanup_backoff(1, ErrorType.CAPACITY_EXHAUSTED, None) == timedelta(minutes=10)
    assert [cleanup_backoff(n, ErrorType.CONFLICT, None).total_seconds() for n in (1, 2, 9)] == [5, 10, 180]
    assert cleanup_backoff(1, ErrorType.NIC_RESERVED, timedelta(seconds=180)) == timedelta(seconds=180)
    assert cleanup_backoff(1, ErrorType.THROTTLED, timedelta(hours=1)) == timedelta(minutes=10)


def test_a_name_held_by_another_owner_waits_ten_minutes_from_the_first_failure() -> None:
    """Retrying sooner cannot change another owner's tag; an operator's `reconcile` cuts the wait short."""
    assert [creation_backoff(n, ErrorType.NOT_OWNED, None) for n in (1, 2, 9)] == [timedelta(minutes=10)] * 3


def test_current_details_show_phase_inventory_error_and_next_retry() -> None:
    state = LifecycleState.fresh(MachineSpec.model_validate(spec_dict()), 0)
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    state.status.inventory = Inventory(nic_names=["vm1-nic"])
    state.status.last_error = "NicReserved: reserved for another VM"
    state.status.next_retry_at = now + timedelta(seconds=180)
    text = render_details(state, now)
    assert text.startswith("## vm1 - Pending")
    assert "no VM; NICs: vm1-nic; disks: none" in text
    assert "NicReserved: reserved for another VM" in text
    assert "12:03:00 UTC (in 180s)" in text


def test_current_details_show_the_data_disks_and_every_step_waiting_to_retry() -> None:
    state = LifecycleState.fresh(MachineSpec.model_validate(spec_dict()), 0)
    now = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    state.status.inventory = Inventory(disk_names=["vm1-data-0-data-disk"], data_disks=[
        DataDiskRef(name="vm1-data-0-data-disk", lun=0, id="/x/disks/vm1-data-0-data-disk", unique_id="5e1f-u")])
    state.status.stalled = [StalledStep(stage=Stage.INITIATE_NIC_DELETION, description="delete NIC vm1-nic",
                                        error="Conflict: NicInUse: in use", failures=3,
                                        next_retry_at=now + timedelta(seconds=40))]
    text = render_details(state, now)
    assert "**Data disks:** vm1-data-0-data-disk (uniqueId 5e1f-u)" in text
    assert ("InitiateNICDeletion: delete NIC vm1-nic (failure 3): Conflict: NicInUse: in use; "
            "next retry 2026-01-01 12:00:40 UTC (in 40s)") in text
