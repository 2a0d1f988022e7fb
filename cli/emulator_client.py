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

    def clear_faults(self) -> None:
        self._call("DELETE", "faults")

    def resources(self, name_prefix: str = "") -> list[dict[str, Any]]:
        answer = self._call("GET", "resources")
        items = answer.get("value", answer) if isinstance(answer, dict) else answer
        return [item for item in items if str(item.get("name", "")).startswith(name_prefix)]

    def requests(self) -> dict[str, Any]:
        return dict(self._call("GET", "requests"))

    def settings(self, **changes: Any) -> dict[str, Any]:
        return dict(self._call("POST", "settings", changes) if changes else self._call("GET", "settings"))
