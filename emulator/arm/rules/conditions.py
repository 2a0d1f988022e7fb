"""ARM's conditional requests on a write (RFC 7232 as ARM applies it), for resource types that honour them.

  If-None-Match: *        the write may only create: refused with 412 when the resource exists
  If-Match: <etag> | *    the write may only change the version read: 412 when the etag differs (or
                          the resource is gone)
Compute documents both on virtual machine PUT and PATCH (api-version 2024-07-01 on, the etag in the
model's `etag`). Any other If-None-Match value is a 400, as Azure says it is not supported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.arm.errors import ArmError

_NOT_MET = "The condition specified using HTTP conditional header(s) is not met."


def check_conditions(headers: Mapping[str, str], current: dict[str, Any] | None) -> None:
    """Raise ARM's error when the request's conditions do not hold for `current` (None: no such resource)."""
    none_match = headers.get("If-None-Match")
    if none_match is not None:
        if none_match.strip() != "*":
            raise ArmError(400, "InvalidRequestHeader",
                           f"The value '{none_match}' of the If-None-Match header is not supported; use '*'.")
        if current is not None:
            raise ArmError(412, "PreconditionFailed", _NOT_MET)
    match = headers.get("If-Match")
    if match is not None:
        if current is None:
            raise ArmError(412, "PreconditionFailed", _NOT_MET)
        wanted = match.strip()
        if wanted != "*" and wanted != str(current.get("etag", "")):
            raise ArmError(412, "PreconditionFailed", _NOT_MET)
