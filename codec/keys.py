"""Codec keys: JSON of key id -> base64 of 32 bytes; the last key listed is the newest and encrypts.

Rotation: add a new key at the end (new payloads use it) and keep the old ones as long as histories
encrypted with them must stay readable. Error messages name the source and the key id, never key bytes.
"""

import base64
import binascii
import json
import os
import re
from dataclasses import dataclass, field

KEY_BYTES = 32  # AES-256
_KEY_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class CodecKeyError(ValueError):
    """Keys that cannot be used; the message says where they came from and what is wrong."""


@dataclass(frozen=True)
class KeyRing:
    keys: dict[str, bytes] = field(default_factory=dict, repr=False)

    @property
    def current(self) -> str | None:
        """The id new payloads are encrypted with: the last one listed."""
        return next(reversed(self.keys), None)

    def merged(self, newer: "KeyRing") -> "KeyRing":
        """This ring plus `newer`'s keys, whose last key then encrypts."""
        keys = {k: v for k, v in self.keys.items() if k not in newer.keys}
        return KeyRing({**keys, **newer.keys})

    def __bool__(self) -> bool:
        return bool(self.keys)


def parse_keys(text: str, source: str) -> KeyRing:
    try:
        data = json.loads(text)
    except ValueError:
        raise CodecKeyError(f"{source}: not JSON (expected {{\"key-id\": \"<base64 of 32 bytes>\", ...}})") from None
    if not isinstance(data, dict) or not data:
        raise CodecKeyError(f"{source}: expected a JSON object of key id -> base64 key, with at least one key")
    keys: dict[str, bytes] = {}
    for key_id, encoded in data.items():
        if not _KEY_ID.fullmatch(key_id):
            raise CodecKeyError(f"{source}: key id {key_id[:64]!r}: 1-64 letters, digits, '.', '_' or '-'")
        try:
            key = base64.b64decode(encoded, validate=True) if isinstance(encoded, str) else b""
        except (binascii.Error, ValueError):
            key = b""
        if len(key) != KEY_BYTES:
            raise CodecKeyError(f"{source}: key {key_id!r} must be base64 of {KEY_BYTES} random bytes (AES-256)")
        keys[key_id] = key
    return KeyRing(keys)


def new_key_json(key_id: str) -> str:
    """A fresh key file's text (one random AES-256 key)."""
    return json.dumps({key_id: base64.b64encode(os.urandom(KEY_BYTES)).decode()})
