"""EmulatorHandle: drive a running emulator's control API (synchronous urllib; fine from async tests)."""

from __future__ import annotations

import json
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cli.processes import Child
from cli.stack import emulator_on_free_port
from emulator.seed import SEED_SUBSCRIPTION, seed_subnet_id

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class EmulatorHandle:
    url: str
    subscription_id: str = SEED_SUBSCRIPTION

    @property
    def subnet_id(self) -> str:
        return seed_subnet_id(self.subscription_id)

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def add_fault(self, operation: str, name: str = "*", status: int = 500, code: str = "", message: str = "",
                  times: int = 1, probability: float = 1.0, stage: str = "request", delay_s: float = 0.0,
                  retry_after_s: float | None = None, late_success_s: float | None = None) -> str:
        rule = {"operation": operation, "name": name, "status": status, "code": code, "message": message,
                "times": times, "probability": probability, "stage": stage, "delay_s": delay_s,
                "retry_after_s": retry_after_s, "late_success_s": late_success_s}
        return self._call("POST", "/_emulator/faults", rule)["id"]

    def faults(self) -> list[dict[str, Any]]:
        return self._call("GET", "/_emulator/faults")

    def remove_fault(self, fault_id: str) -> None:
        self._call("DELETE", f"/_emulator/faults/{fault_id}")

    def clear_faults(self) -> None:
        self._call("DELETE", "/_emulator/faults")

    def resources(self, type_contains: str = "") -> list[dict[str, Any]]:
        """Every resource whose type contains `type_contains` (case-insensitive)."""
        query = f"?type={urllib.request.quote(type_contains)}" if type_contains else ""
        return self._call("GET", f"/_emulator/resources{query}")

    def requests(self) -> dict[str, Any]:
        """`{"total": int, "by_operation": {"virtualMachines.put": int, ...}, "failed_by_operation": {...},
        "vm_deletions": [{"id", "forceDeletion", "forced", "azureSeconds"}, ...]}` (failed: 4xx/5xx answers
        plus operations that ended Failed)."""
        return self._call("GET", "/_emulator/requests")

    def settings(self, **changes: Any) -> dict[str, Any]:
        """Current settings after applying `changes` (time_scale, throttling, index_lag_s, ...)."""
        if changes:
            return self._call("POST", "/_emulator/settings", changes)
        return self._call("GET", "/_emulator/settings")

    def evict(self, vm_id: str) -> dict[str, Any]:
        """Evict a running Spot VM by its eviction policy: `{"id", "evictionPolicy"}`."""
        return self._call("POST", "/_emulator/evict", {"id": vm_id})

    def make_unavailable(self, vm_size: str | None = None, zone: str | None = None, priority: str | None = None,
                         code: str | None = None, location: str | None = None) -> str:
        """Capacity gone for what matches (None = any; zone "" = regional VMs); its entry id."""
        entry = {"vm_size": vm_size, "zone": zone, "priority": priority, "code": code, "location": location,
                 "available": False}
        return self._call("POST", "/_emulator/capacity", entry)["id"]

    def capacity(self) -> list[dict[str, Any]]:
        """The capacity entries, each with `hits` (allocations it refused)."""
        return self._call("GET", "/_emulator/capacity")

    def restore_capacity(self, entry_id: str | None = None) -> None:
        """Capacity back: one entry, or all of them."""
        self._call("DELETE", f"/_emulator/capacity/{entry_id}" if entry_id else "/_emulator/capacity")

    def set_quota(self, limit_cores: int, family: str | None = None, vm_size: str | None = None,
                  location: str | None = None, code: str = "OperationNotAllowed") -> str:
        """A vCPU limit for a family (or `cores`, `lowPriorityCores`) or a size's family; its entry id."""
        entry = {"limit_cores": limit_cores, "family": family, "vm_size": vm_size, "location": location,
                 "code": code}
        return self._call("POST", "/_emulator/quota", entry)["id"]

    def add_reference(self, resource_id: str) -> dict[str, Any]:
        """A disk encryption set, capacity reservation group, proximity placement group or availability set that
        now exists (a VM may reference it)."""
        return self.add_to_catalog("reference", resource_id)

    def register_feature(self, feature: str, registered: bool = True) -> dict[str, Any]:
        return self.add_to_catalog("feature", {"name": feature, "registered": registered})

    def quotas(self) -> list[dict[str, Any]]:
        return self._call("GET", "/_emulator/quota")

    def clear_quota(self, entry_id: str | None = None) -> None:
        self._call("DELETE", f"/_emulator/quota/{entry_id}" if entry_id else "/_emulator/quota")

    def add_guest_fault(self, name: str, fault: str, resource_group: str | None = None,
                        persistent: bool = False) -> dict[str, Any]:
        """Break VM `name`'s guest ("hang", "boot_failure", "kernel_panic", "host_failure"; `persistent`: no repair
        clears it): its record `{"id", "name", "resource_group", "fault", "persistent", "created"}`."""
        return self._call("POST", "/_emulator/guest-faults",
                          {"name": name, "fault": fault, "resource_group": resource_group, "persistent": persistent})

    def guest_faults(self) -> list[dict[str, Any]]:
        return self._call("GET", "/_emulator/guest-faults")["value"]

    def clear_guest_faults(self, fault_id: str | None = None) -> None:
        """One guest fault, or all of them."""
        self._call("DELETE", f"/_emulator/guest-faults/{fault_id}" if fault_id else "/_emulator/guest-faults")

    def force_resource_health(self, names: list[str], availability_state: str, context: str | None = None,
                              summary: str | None = None) -> list[dict[str, Any]]:
        """Force the Resource Health of the VMs of `names` (e.g. "Unavailable", context "Platform Initiated":
        a region-wide outage) until clear_resource_health."""
        body = {"names": names, "availability_state": availability_state, "context": context, "summary": summary}
        return self._call("POST", "/_emulator/resource-health", body)["value"]

    def clear_resource_health(self) -> None:
        self._call("DELETE", "/_emulator/resource-health")

    def schedule_event(self, name: str, event_type: str, not_before_seconds: float | None = None,
                       duration_seconds: float | None = None, resource_group: str | None = None,
                       self_service: tuple[float, float] | None = None) -> dict[str, Any]:
        """Azure announces `event_type` (Reboot, Redeploy, Freeze, Preempt, Terminate) on VM `name`: its record
        (IMDS fields, `targetResourceId`, `outcome`). At time scale 0 its deadline passes only by start_event.
        `self_service`: a Redeploy's self-service window, (start, end) in seconds from now."""
        start, end = self_service or (None, None)
        body = {"name": name, "event_type": event_type, "not_before_seconds": not_before_seconds,
                "duration_seconds": duration_seconds, "resource_group": resource_group,
                "self_service_start_seconds": start, "self_service_end_seconds": end}
        return self._call("POST", "/_emulator/scheduled-events", {k: v for k, v in body.items() if v is not None})

    def start_event(self, event_id: str) -> dict[str, Any]:
        """The event's deadline passes now: Azure does what it announced."""
        return self._call("POST", f"/_emulator/scheduled-events/{event_id}/start")

    def complete_event(self, event_id: str) -> dict[str, Any]:
        return self._call("POST", f"/_emulator/scheduled-events/{event_id}/complete")

    def scheduled_events(self) -> list[dict[str, Any]]:
        return self._call("GET", "/_emulator/scheduled-events")["value"]

    def degrade_host(self, name: str, not_before_seconds: float | None = None) -> dict[str, Any]:
        """VM `name`'s host degrades: `{"annotation", "scheduled_event"}` (a Redeploy)."""
        body: dict[str, Any] = {"name": name}
        if not_before_seconds is not None:
            body["not_before_seconds"] = not_before_seconds
        return self._call("POST", "/_emulator/degrade-host", body)

    def annotate(self, name: str, annotation: str) -> dict[str, Any]:
        return self._call("POST", "/_emulator/annotations", {"name": name, "annotation": annotation})

    def add_to_catalog(self, kind: str, value: Any) -> Any:
        """Make a user-assigned identity (`identity`, an id), an image (`image`, an id), a plan's accepted terms
        (`agreement`, {publisher, product, name}) or a Compute resource (`reference`, an id) exist, or (un)register a
        feature (`feature`, {name, registered}) (emulator/compute/vm_catalog.py)."""
        return self._call("POST", "/_emulator/catalog", {kind: value})

    def reset(self) -> None:
        self._call("POST", "/_emulator/reset")

    def healthy(self) -> bool:
        try:
            return self._call("GET", "/_emulator/health")["status"] == "ok"
        except (urllib.error.URLError, OSError):
            return False


class EmulatorProcess:
    """`python -m emulator` as a subprocess on a free loopback port; its output in a temporary log, removed when
    it stops."""

    def __init__(self, *extra_args: str) -> None:
        self.extra_args = extra_args
        descriptor, log_path = tempfile.mkstemp(prefix="azmc-emulator-", suffix=".log")
        os.close(descriptor)
        self.log_path = Path(log_path)
        self.child: Child | None = None

    def start(self) -> EmulatorHandle:
        self.child, port = emulator_on_free_port(self.log_path, self.extra_args)
        return EmulatorHandle(f"http://127.0.0.1:{port}")

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()
        self.log_path.unlink(missing_ok=True)
