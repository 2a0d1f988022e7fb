"""The payload codec: each payload (protobuf-serialized) is sealed with AES-256-GCM under the newest key.

An encrypted payload's metadata says `encoding: binary/encrypted` and which key sealed it
(`encryption-key-id`), so a process holding older keys still opens old histories. Payloads that are not
encrypted (histories from before encryption, a plain `temporal workflow start --input`) pass through.
A payload that does not open raises an UndecodablePayloadError naming why, or, in a worker
(`mark_undecodable`), becomes a marker (codec/undecodable.py) so the workflow decides instead of its task failing.
"""

import os
from collections.abc import Sequence

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from google.protobuf.message import DecodeError
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from codec.holders import KeyHolders
from codec.keys import KeyRing
from codec.missing_keys import MissingKeys
from codec.undecodable import marker
from models.undecodable import CorruptPayloadError, MissingKeyError, UndecodablePayloadError

__all__ = ["ENCODING", "KEY_ID", "AesGcmCodec", "MissingKeyError", "UndecodablePayloadError"]

ENCODING = b"binary/encrypted"
KEY_ID = "encryption-key-id"
_NONCE = 12
_TAG = 16  # AES-GCM's authentication tag: a sealed payload is at least nonce + tag bytes


class AesGcmCodec(PayloadCodec):
    def __init__(self, keys: KeyRing, mark_undecodable: bool = False, holders: KeyHolders | None = None,
                 missing: MissingKeys | None = None) -> None:
        self._keys = keys
        self._mark = mark_undecodable
        self._holders = holders or KeyHolders()
        self._missing = missing

    def marking(self, holders: KeyHolders | None = None, missing: MissingKeys | None = None) -> "AesGcmCodec":
        """The same keys, turning what does not open into markers (a worker's codec): `holders` says which keys
        other live workers hold, `missing` reports a key this worker lacks."""
        return AesGcmCodec(self._keys, mark_undecodable=True, holders=holders, missing=missing)

    @property
    def key_ids(self) -> list[str]:
        return list(self._keys.keys)

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
        return [self._decoded(p) if p.metadata.get("encoding") == ENCODING else p for p in payloads]

    def _decoded(self, payload: Payload) -> Payload:
        if not self._mark:
            return self._open(payload)
        try:
            return self._open(payload)
        except MissingKeyError as error:
            # A key this worker holds that does not open it would not open it elsewhere either: a forged payload.
            elsewhere = error.key_id not in self._keys.keys and self._holders.hold(error.key_id)
            if self._missing is not None:
                self._missing.met(error.key_id, elsewhere)
            return marker(error, held_elsewhere=elsewhere)
        except UndecodablePayloadError as error:
            return marker(error)

    def _open(self, payload: Payload) -> Payload:
        key_id = payload.metadata.get(KEY_ID, b"").decode(errors="replace")
        if not key_id:
            raise CorruptPayloadError(f"encrypted payload names no codec key (metadata {KEY_ID})")
        if len(payload.data) < _NONCE + _TAG:
            raise CorruptPayloadError(f"payload under codec key {key_id[:64]!r} is {len(payload.data)} bytes, shorter "
                                      f"than an AES-GCM nonce and tag ({_NONCE + _TAG}): it was never sealed by azmc")
        key = self._keys.keys.get(key_id)
        if key is None:
            have = ", ".join(self._keys.keys) or "none"
            raise MissingKeyError(f"payload encrypted with codec key {key_id[:64]!r}, which this process does not "
                                  f"have (keys: {have}); add it to AZMC_CODEC_KEYS / AZMC_CODEC_KEYS_FILE", key_id)
        try:
            plain = AESGCM(key).decrypt(payload.data[:_NONCE], payload.data[_NONCE:], key_id.encode())
        except InvalidTag:
            raise MissingKeyError(f"payload does not open with codec key {key_id!r}: the key under that id differs "
                                  "from the one that encrypted it, or the payload was altered", key_id) from None
        opened = Payload()
        try:
            opened.ParseFromString(plain)
        except DecodeError:
            raise CorruptPayloadError(f"payload under codec key {key_id!r} opens, but is not a Temporal "
                                      "payload") from None
        return opened
