"""A small client for the emulator's control API (`/_emulator/...`), used by `azmc demo` and the benchmark."""

import json
import urllib.request
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class EmulatorControl:
    url: str

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url}/_emulator/{path}", data=data, method=method, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            raw = response.read()
        return json.loads(raw) if raw else None

    def healthy(self) -> bool:
        try:
            self._call("GET", "health")
        except OSError:
            return False
        return True

    def add_fault(self, **fault: Any) -> str:
        return str(self._call("POST", "faults", fault)["id"])

    def faults(self) -> list[dict[str, Any]]:
        """The fault rules in force, each with `hits`; a rule that used its `times` up is gone."""
        return list(self._call("GET", "faults"))

    def clear_faults(self) -> None:
        self._call("DELETE", "faults")

    def make_unavailable(self, vm_size: str | None = None, zone: str | None = None, priority: str | None = None,
                         code: str | None = None, location: str | None = None) -> str:
        """Capacity gone for what matches (None = any; zone "" = regional VMs); its entry id."""
        entry = {"vm_size": vm_size, "zone": zone, "priority": priority, "code": code, "location": location,
                 "available": False}
        return str(self._call("POST", "capacity", entry)["id"])

    def capacity(self) -> list[dict[str, Any]]:
        """The capacity entries, each with `hits` (allocations it refused)."""
        return list(self._call("GET", "capacity"))

    def restore_capacity(self, entry_id: str | None = None) -> None:
        self._call("DELETE", f"capacity/{entry_id}" if entry_id else "capacity")

    def set_quota(self, limit_cores: int, family: str | None = None, vm_size: str | None = None,
                  location: str | None = None) -> str:
        entry = {"limit_cores": limit_cores, "family": family, "vm_size": vm_size, "location": location}
        return str(self._call("POST", "quota", entry)["id"])

    def clear_quota(self, entry_id: str | None = None) -> None:
        self._call("DELETE", f"quota/{entry_id}" if entry_id else "quota")

    def resources(self, name_prefix: str = "") -> list[dict[str, Any]]:
        answer = self._call("GET", "resources")
        items = answer.get("value", answer) if isinstance(answer, dict) else answer
        return [item for item in items if str(item.get("name", "")).startswith(name_prefix)]

    def requests(self) -> dict[str, Any]:
        return dict(self._call("GET", "requests"))

    def settings(self, **changes: Any) -> dict[str, Any]:
        return dict(self._call("POST", "settings", changes) if changes else self._call("GET", "settings"))

    def add_guest_fault(self, name: str, fault: str, resource_group: str | None = None,
                        persistent: bool = False) -> str:
        """Make the guest of VM `name` misbehave (hang, boot_failure, kernel_panic, host_failure); its id."""
        body = {"name": name, "fault": fault, "resource_group": resource_group, "persistent": persistent}
        return str(self._call("POST", "guest-faults", body)["id"])

    def guest_faults(self) -> list[dict[str, Any]]:
        return list(self._call("GET", "guest-faults")["value"])
