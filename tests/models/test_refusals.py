"""The refusal table: which codes are capacity errors, and how long and how wide each marks offerings."""

from datetime import UTC, datetime, timedelta

import pytest

from models.offerings import ANY, Offering
from models.refusals import is_capacity_error, refusal_of
from models.spec import Priority

NOW = datetime(2026, 1, 1, tzinfo=UTC)
D4_Z2 = Offering(vm_size="Standard_D4s_v5", zone="2", location="westeurope", subscription="s1")
D4_Z2_SPOT = D4_Z2.model_copy(update={"priority": Priority.SPOT})
FAMILY_QUOTA = ("Operation could not be completed as it results in exceeding approved standardDSv5Family Cores "
                "quota. Additional details - Deployment Model: Resource Manager, Location: westeurope, "
                "Current Limit: {limit}, Current Usage: 8, Additional Required: 4, (Minimum) New Limit Required: 12.")


@pytest.mark.parametrize(("offering", "code", "message", "minutes", "pattern"), [
    (D4_Z2, "AllocationFailed", "", 60, ("Standard_D4s_v5", ANY, ANY)),
    (D4_Z2, "ZonalAllocationFailed", "", 60, ("Standard_D4s_v5", "2", ANY)),
    (D4_Z2, "OverconstrainedZonalAllocationRequest", "", 60, ("Standard_D4s_v5", "2", "Regular")),
    (D4_Z2_SPOT, "OverconstrainedAllocationRequest", "", 60, ("Standard_D4s_v5", ANY, "Spot")),
    (D4_Z2_SPOT, "SkuNotAvailable", "", 60, ("Standard_D4s_v5", ANY, "Spot")),
    (D4_Z2, "SkuNotAvailable", "", 23 * 60, ("Standard_D4s_v5", ANY, "Regular")),
    (D4_Z2, "OperationNotAllowed", FAMILY_QUOTA.format(limit=10), 10, ("Standard_D4s_v5", ANY, "Regular")),
    (D4_Z2, "QuotaExceeded", FAMILY_QUOTA.format(limit=0), 60, ("Standard_D4s_v5", ANY, "Regular")),
    (D4_Z2, "OperationNotAllowed", "... exceeding approved Total Regional Cores quota ...", 30, (ANY, ANY, "Regular")),
    (D4_Z2_SPOT, "OperationNotAllowed", "... exceeding approved LowPriorityCores quota ...", 30, (ANY, ANY, "Spot")),
    (D4_Z2, "SpareCapacityExhausted", "", 3, ("Standard_D4s_v5", "2", "Regular")),
])
def test_each_capacity_code_marks_its_scope_for_its_time(offering: Offering, code: str, message: str,
                                                        minutes: int, pattern: tuple[str, str, str]) -> None:
    refusal = refusal_of(offering, code, message, NOW, machine="rg/vm1")
    assert refusal is not None and refusal.code == code and refusal.machine == "rg/vm1"
    assert refusal.until - refusal.refused_at == timedelta(minutes=minutes)
    assert (refusal.vm_size, refusal.zone, refusal.priority) == pattern
    assert refusal.matches(offering)


def test_zonal_failure_leaves_the_other_zones_and_sizes_available() -> None:
    refusal = refusal_of(D4_Z2, "ZonalAllocationFailed", "", NOW)
    assert refusal is not None and refusal.matches(D4_Z2_SPOT)
    assert not refusal.matches(D4_Z2.model_copy(update={"zone": "1"}))
    assert not refusal.matches(D4_Z2.model_copy(update={"vm_size": "Standard_D8s_v5"}))
    assert refusal.scope() == "Standard_D4s_v5 in zone 2"


@pytest.mark.parametrize(("code", "message"), [
    ("OperationNotAllowed", "Disk vm1-os-disk is attached to VM vm1"),  # a conflict, not capacity
    ("InvalidParameter", "bad"), ("NicInUse", ""), ("", ""),
])
def test_other_errors_mark_nothing(code: str, message: str) -> None:
    assert not is_capacity_error(code, message)
    assert refusal_of(D4_Z2, code, message, NOW) is None


def test_long_messages_are_shortened() -> None:
    refusal = refusal_of(D4_Z2, "AllocationFailed", "x" * 1000, NOW)
    assert refusal is not None and len(refusal.message) == 300
