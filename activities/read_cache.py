"""The read cache: what this worker last learned of each machine from ARM, so the next activity need not ask again.

Never trusted for more than it proves:
  - a VM read (or written) is used for a conditional write: the PATCH carries If-Match with the VM's
    etag, so ARM refuses it (412) if the VM changed since, whatever the age; the caller then GETs;
  - an ownership check or an absence seen at most TRUST_S ago stands in for a read right before a
    write or delete that ARM cannot condition (a VM DELETE, a NIC PUT): the same check, seconds older.
Activities of one machine that run on another worker find nothing here and read ARM, as before.
Bounded (least recently used goes first), and per process: a restart forgets everything, safely.
"""

import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

TRUST_S = 30.0
MAX_MACHINES = 20_000


def _key(resource_group: str, name: str) -> tuple[str, str]:
    return resource_group.lower(), name.lower()


@dataclass
class _Seen:
    vm: Any = None  # the VM as last read or written (azure.mgmt.compute VirtualMachine), None: not known
    vm_at: float = 0.0
    deleted_at: float = 0.0  # when this worker saw its delete of the VM succeed
    listed: Any = None  # the machine's resources as ARM listed them (activities/reading/machine_resources.py)
    listed_at: float = 0.0


class ReadCache:
    def __init__(self, max_machines: int = MAX_MACHINES) -> None:
        self._seen: OrderedDict[tuple[str, str], _Seen] = OrderedDict()
        self._max = max_machines

    def _entry(self, resource_group: str, name: str) -> _Seen:
        key = _key(resource_group, name)
        entry = self._seen.pop(key, None) or _Seen()
        self._seen[key] = entry
        while len(self._seen) > self._max:
            self._seen.popitem(last=False)
        return entry

    def _peek(self, resource_group: str, name: str) -> _Seen | None:
        return self._seen.get(_key(resource_group, name))

    def saw_vm(self, resource_group: str, name: str, vm: Any) -> None:
        entry = self._entry(resource_group, name)
        entry.vm, entry.vm_at = vm, time.monotonic()
        if vm is not None:
            entry.deleted_at = 0.0

    def saw_deleted(self, resource_group: str, name: str) -> None:
        entry = self._entry(resource_group, name)
        entry.vm, entry.deleted_at = None, time.monotonic()

    def saw_listed(self, resource_group: str, name: str, listed: Any) -> None:
        entry = self._entry(resource_group, name)
        entry.listed, entry.listed_at = listed, time.monotonic()

    def knows(self, resource_group: str, name: str) -> bool:
        """Whether this worker has read or written anything of the machine since it started."""
        return self._peek(resource_group, name) is not None

    def forget(self, resource_group: str, name: str) -> None:
        self._seen.pop(_key(resource_group, name), None)

    def vm(self, resource_group: str, name: str, *, within_s: float | None = None) -> Any:
        """The VM last seen (any age, for an If-Match write; `within_s`: only if seen that recently)."""
        entry = self._peek(resource_group, name)
        if entry is None or entry.vm is None:
            return None
        if within_s is not None and time.monotonic() - entry.vm_at > within_s:
            return None
        return entry.vm

    def deleted_recently(self, resource_group: str, name: str) -> bool:
        entry = self._peek(resource_group, name)
        return entry is not None and entry.deleted_at > 0 and time.monotonic() - entry.deleted_at <= TRUST_S

    def listed_recently(self, resource_group: str, name: str) -> Any:
        """The machine's resources as listed at most TRUST_S ago, or None."""
        entry = self._peek(resource_group, name)
        if entry is None or entry.listed is None or time.monotonic() - entry.listed_at > TRUST_S:
            return None
        return entry.listed
