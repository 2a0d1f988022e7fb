"""A payload that could not be decoded, as a workflow handler receives it in place of a value.

A worker's codec replaces such a payload with a marker (codec/undecodable.py) instead of failing the workflow
task again and again; workflows/refusals.py decides what a handler does with it. `depends_on_keys` tells the
two kinds apart: a key this process does not have (another worker may have it), or a payload no process can
read (too short, not a Temporal payload once opened, not JSON).
"""

from dataclasses import dataclass


class UndecodablePayloadError(RuntimeError):
    """A payload this process cannot decode; the message says why, naming key ids only."""

    depends_on_keys = False


class MissingKeyError(UndecodablePayloadError):
    """Sealed with a key this process does not have (or has under that id with other bytes). Not an
    ApplicationError on purpose: in a worker replaying a history it fails the workflow task, which Temporal
    retries, so the workflow waits for a worker with the key."""

    depends_on_keys = True

    def __init__(self, message: str, key_id: str = "") -> None:
        super().__init__(message)
        self.key_id = key_id


class CorruptPayloadError(UndecodablePayloadError):
    """No key can open it: too short, no key id, or not a Temporal payload once opened."""


@dataclass(frozen=True)
class Undecodable:
    """What a handler receives in place of a value its payload could not be decoded into."""

    reason: str
    depends_on_keys: bool
    held_elsewhere: bool = False  # another live worker holds the key: leave the message to it (workflows/refusals.py)

    def error(self) -> UndecodablePayloadError:
        return (MissingKeyError if self.depends_on_keys else CorruptPayloadError)(self.reason)
