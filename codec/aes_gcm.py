"""The payload codec: each payload (protobuf-serialized) is sealed with AES-256-GCM under the newest key.

An encrypted payload's metadata says `encoding: binary/encrypted` and which key sealed it
(`encryption-key-id`), so a process holding older keys still opens old histories. Payloads that are not
encrypted (histories from before encryption, a plain `temporal workflow start --input`) pass through.
"""

import os
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from codec.keys import KeyRing

ENCODING = b"binary/encrypted"
KEY_ID = "encryption-key-id"
_NONCE = 12


class MissingKeyError(RuntimeError):
    """A payload was sealed with a key this process does not have. Not an ApplicationError on purpose: in a
    worker it fails the workflow task, which Temporal retries, so the workflow waits for a worker with the key."""


class AesGcmCodec(PayloadCodec):
    def __init__(self, keys: KeyRing) -> None:
        self._keys = keys

    def describe(self) -> str:
        """One line for a log: the key ids, never the keys."""
        if not self._keys:
            return "off: payloads are not encrypted (set AZMC_CODEC_KEYS, AZMC_CODEC_KEYS_FILE or a Key Vault)"
        return f"AES-256-GCM with key {self._keys.current} (readable: {', '.join(self._keys.keys)})"

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        key_id = self._keys.current
        if key_id is None:
            return list(payloads)
        aead = AESGCM(self._keys.keys[key_id])
        out = []
        for payload in payloads:
            nonce = os.urandom(_NONCE)
            # The key id is authenticated: moving a payload under another key id fails to open.
            sealed = aead.encrypt(nonce, payload.SerializeToString(), key_id.encode())
            out.append(Payload(metadata={"encoding": ENCODING, KEY_ID: key_id.encode()}, data=nonce + sealed))
        return out

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._open(p) if p.metadata.get("encoding") == ENCODING else p for p in payloads]

    def _open(self, payload: Payload) -> Payload:
        key_id = payload.metadata.get(KEY_ID, b"").decode(errors="replace")
        key = self._keys.keys.get(key_id)
        if key is None:
            have = ", ".join(self._keys.keys) or "none"
            raise MissingKeyError(
                f"payload encrypted with codec key {key_id!r}, which this process does not have (keys: {have}); "
                "add it to AZMC_CODEC_KEYS / AZMC_CODEC_KEYS_FILE: nothing is lost, the work waits for it")
        try:
            plain = AESGCM(key).decrypt(payload.data[:_NONCE], payload.data[_NONCE:], key_id.encode())
        except InvalidTag:
            raise MissingKeyError(f"payload does not open with codec key {key_id!r}: the key under that id "
                                  "differs from the one that encrypted it") from None
        opened = Payload()
        opened.ParseFromString(plain)
        return opened
