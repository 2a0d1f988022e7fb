"""Raw ARM calls for what no installed SDK covers (resource groups) or what an SDK hides (headers, 401)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from tests.support.emulator import EmulatorHandle


@dataclass
class ArmAnswer:
    status: int
    headers: dict[str, str]
    body: Any

    @property
    def error_code(self) -> str | None:
        return (self.body or {}).get("error", {}).get("code") if isinstance(self.body, dict) else None


def arm(handle: EmulatorHandle, method: str, path: str, body: Any = None, token: str | None = "test-token",
        api_version: str = "2024-07-01") -> ArmAnswer:
    sep = "&" if "?" in path else "?"
    url = f"{handle.url}{path}{sep}api-version={api_version}" if path.startswith("/") else path
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, raw, got = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        status, raw, got = error.code, error.read(), dict(error.headers)
    return ArmAnswer(status, {k.lower(): v for k, v in got.items()}, json.loads(raw) if raw else None)


def group_path(handle: EmulatorHandle, name: str) -> str:
    return f"/subscriptions/{handle.subscription_id}/resourceGroups/{name}"
