"""ReadCache (pure): what a worker may take as known without asking ARM again, and for how long."""

import pytest

from activities import read_cache
from activities.read_cache import TRUST_S, ReadCache


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(read_cache.time, "monotonic", lambda: now[0])
    return now


def test_a_vm_is_kept_for_conditional_writes_but_trusted_only_briefly(clock: list[float]) -> None:
    known = ReadCache()
    known.saw_vm("RG", "vm1", "the vm")
    assert known.vm("rg", "VM1", within_s=TRUST_S) == "the vm"  # names as ARM compares them
    clock[0] += TRUST_S + 1
    assert known.vm("rg", "vm1", within_s=TRUST_S) is None  # too old to stand in for a read
    assert known.vm("rg", "vm1") == "the vm"  # still the base of an If-Match write


def test_a_delete_and_a_listing_are_trusted_for_trust_s_only(clock: list[float]) -> None:
    known = ReadCache()
    assert not known.knows("rg", "vm1") and not known.deleted_recently("rg", "vm1")
    known.saw_deleted("rg", "vm1")
    known.saw_listed("rg", "vm1", ["listed"])
    assert known.knows("rg", "vm1") and known.deleted_recently("rg", "vm1")
    assert known.vm("rg", "vm1") is None and known.listed_recently("rg", "vm1") == ["listed"]
    clock[0] += TRUST_S + 1
    assert not known.deleted_recently("rg", "vm1") and known.listed_recently("rg", "vm1") is None
    known.saw_vm("rg", "vm1", "again")
    assert not known.deleted_recently("rg", "vm1")


def test_it_holds_a_bounded_number_of_machines_least_recent_first_out() -> None:
    known = ReadCache(max_machines=2)
    for name in ("a", "b", "c"):
        known.saw_vm("rg", name, name)
    assert not known.knows("rg", "a") and known.vm("rg", "b") == "b" and known.vm("rg", "c") == "c"
