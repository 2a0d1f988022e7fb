"""The marker a worker's codec puts in place of a payload it cannot decode.

A workflow task's payloads are decoded before workflow code sees them, so a codec that raised would fail
the task again and again: one bad signal would stop the workflow. A worker's codec instead replaces the
payload with a marker that carries only the reason (never the ciphertext, never a key), and the worker's
payload converter hands handlers an `Undecodable` (models/undecodable.py) for it.
"""

from temporalio.api.common.v1 import Payload

from models.undecodable import Undecodable, UndecodablePayloadError

ENCODING = b"binary/azmc-undecodable"
_REASON = "azmc-undecodable-reason"
_KEYS = "azmc-undecodable-depends-on-keys"
_ELSEWHERE = "azmc-undecodable-held-elsewhere"


def marker(error: UndecodablePayloadError, held_elsewhere: bool = False) -> Payload:
    return Payload(metadata={"encoding": ENCODING, _REASON: str(error).encode(),
                             _KEYS: b"1" if error.depends_on_keys else b"0",
                             _ELSEWHERE: b"1" if held_elsewhere else b"0"})


def read_marker(payload: Payload) -> Undecodable | None:
    if payload.metadata.get("encoding") != ENCODING:
        return None
    return Undecodable(payload.metadata.get(_REASON, b"").decode(errors="replace"),
                       payload.metadata.get(_KEYS) == b"1", payload.metadata.get(_ELSEWHERE) == b"1")
