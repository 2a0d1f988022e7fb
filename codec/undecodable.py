"""A payload that cannot be decoded, and the marker a worker's codec puts in its place.

A workflow task's payloads are decoded before workflow code sees them, so a codec that raised would fail
the task again and again: one bad signal would stop the workflow. A worker's codec instead replaces the
payload with a marker that carries only the reason (never the ciphertext, never a key), and the worker's
payload converter hands handlers an `Undecodable` for it (workflows/refusals.py decides what to do).

`depends_on_keys` tells the two kinds apart: a key this process does not have (another worker may have
it), or a payload no process can read (too short, not a Temporal payload once opened, not JSON).
"""

from dataclasses import dataclass

from temporalio.api.common.v1 import Payload

ENCODING = b"binary/azmc-undecodable"
_REASON = "azmc-undecodable-reason"
_KEYS = "azmc-undecodable-depends-on-keys"


class UndecodablePayloadError(RuntimeError):
    """A payload this process cannot decode; the message says why, naming key ids only."""

    depends_on_keys = False


class MissingKeyError(UndecodablePayloadError):
    """Sealed with a key this process does not have (or has under that id with other bytes). Not an
    ApplicationError on purpose: in a worker replaying a history it fails the workflow task, which Temporal
    retries, so the workflow waits for a worker with the key."""

    depends_on_keys = True


class CorruptPayloadError(UndecodablePayloadError):
    """No key can open it: too short, no key id, or not a Temporal payload once opened."""


@dataclass(frozen=True)
class Undecodable:
    """What a handler receives in place of a value its payload could not be decoded into."""

    reason: str
    depends_on_keys: bool

    def error(self) -> UndecodablePayloadError:
        return (MissingKeyError if self.depends_on_keys else CorruptPayloadError)(self.reason)


def marker(error: UndecodablePayloadError) -> Payload:
    return Payload(metadata={"encoding": ENCODING, _REASON: str(error).encode(),
                             _KEYS: b"1" if error.depends_on_keys else b"0"})


def read_marker(payload: Payload) -> Undecodable | None:
    if payload.metadata.get("encoding") != ENCODING:
        return None
    return Undecodable(payload.metadata.get(_REASON, b"").decode(errors="replace"),
                       payload.metadata.get(_KEYS) == b"1")
