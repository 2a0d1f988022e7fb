"""azmc's DataConverter: pydantic JSON payloads, sealed by the AES-GCM codec.

Failures: the codec seals their details (ApplicationError details, heartbeat details), while their
messages and stack traces stay readable (the default failure converter, not one with
`encode_common_attributes`): azmc writes no secret into a message, and an operator reading a failed
workflow in any UI needs them. Search attributes are never encrypted (the server indexes them) and the
static summary names only the machine, size and place: neither holds a secret by design.

A worker decodes with `for_workers`: what does not decode reaches the workflow as an `Undecodable`
(codec/undecodable.py) where a handler takes any value, instead of failing the workflow task forever.
"""

import dataclasses
from collections.abc import Sequence
from typing import Any

from pydantic_core import ValidationError
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.common import RawValue
from temporalio.contrib.pydantic import PydanticPayloadConverter, pydantic_data_converter
from temporalio.converter import DataConverter

from codec.aes_gcm import ENCODING, AesGcmCodec
from codec.holders import KeyHolders
from codec.keys import KeyRing
from codec.missing_keys import MissingKeys
from codec.undecodable import read_marker
from models.audit import AUDIT_METADATA, TRAIL, Audited
from models.undecodable import Undecodable

_AS_JSON = "send the value as JSON (encoding json/plain), as the `temporal` CLI's --input does"
# The type hints of handlers that take any value (`*args: Any`, `x: Any`): these get an Undecodable.
_ANY_VALUE = (None, Any, object)


class AzmcPayloadConverter(PydanticPayloadConverter):
    """Pydantic JSON, plus an activity result's audit trail in the payload's metadata (models/audit.py):
    the value decodes exactly as without it."""

    carries_audit_trail = True  # models.audit.CARRIES_TRAIL: activities/audit.py sends the trail through it

    def to_payloads(self, values: Sequence[Any]) -> list[Payload]:
        payloads = super().to_payloads([v.value if isinstance(v, Audited) else v for v in values])
        for value, payload in zip(values, payloads, strict=True):
            if isinstance(value, Audited):
                payload.metadata[AUDIT_METADATA] = TRAIL.dump_json(value.trail)
        return payloads

    def from_payloads(self, payloads: Sequence[Payload], type_hints: list[type] | None = None) -> list[Any]:
        for payload in payloads:
            found = read_marker(payload)
            if found is not None:
                raise found.error()  # raised here, so its message is not wrapped in "Payload at index ..."
        return super().from_payloads(payloads, type_hints)


class WorkerPayloadConverter(AzmcPayloadConverter):
    """A worker's: a payload that does not decode into "any value" becomes an Undecodable, so the handler
    that asked for it refuses the message; a typed value (an activity's result, a query's argument) and a
    failure's details still raise, failing that one step as before."""

    def from_payloads(self, payloads: Sequence[Payload], type_hints: list[type] | None = None) -> list[Any]:
        hints = type_hints or []
        values = []
        for index, payload in enumerate(payloads):
            hint = hints[index] if index < len(hints) else None
            if hint is RawValue:
                values.append(RawValue(payload))
            elif hint not in _ANY_VALUE:
                values.extend(super().from_payloads([payload], [hint]))
            else:
                values.append(self._any_value(payload))
        return values

    def _any_value(self, payload: Payload) -> Any:
        found = read_marker(payload)
        if found is not None:
            return found
        try:
            (value,) = super().from_payloads([payload])
        except Exception as error:  # a payload no worker can read the same way: the handler refuses it
            return Undecodable(self._why(payload, error), depends_on_keys=False)
        return value

    def _why(self, payload: Payload, error: Exception) -> str:
        """What was wrong, in an operator's words: the encoding met, and why no worker reads it."""
        encoding = payload.metadata.get("encoding")
        if not encoding:
            return f"payload has no encoding in its metadata, so nothing says how to read it: {_AS_JSON}"
        shown = encoding.decode(errors="replace")[:64]
        if encoding not in self.converters:
            known = ", ".join(sorted(known.decode() for known in self.converters))
            return (f"payload encoding {shown!r} is not one azmc reads ({known}, and {ENCODING.decode()} sealed by "
                    f"azmc's codec): {_AS_JSON}")
        if encoding.endswith(b"/protobuf"):
            return f"payload encoding {shown!r} carries a protobuf message, which no azmc handler takes: {_AS_JSON}"
        cause = error.__cause__ or error
        detail = cause.errors()[0]["msg"] if isinstance(cause, ValidationError) else str(cause)
        detail = (detail.splitlines() or [""])[0][:200]
        if encoding == b"json/plain":
            return f"payload encoding 'json/plain' does not decode: its data is not a JSON value ({detail})"
        return f"payload encoding {shown!r} does not decode: {detail}"

    def from_payloads_wrapper(self, payloads: Payloads | None) -> list[Any]:
        """Failures' and heartbeats' details: never an Undecodable (a failure is not a handler's message)."""
        if not payloads or not payloads.payloads:
            return []
        return AzmcPayloadConverter.from_payloads(self, payloads.payloads)


def azmc_data_converter(keys: KeyRing) -> DataConverter:
    """With no keys nothing is encrypted, but an encrypted payload still fails naming its key id."""
    return dataclasses.replace(pydantic_data_converter, payload_converter_class=AzmcPayloadConverter,
                               payload_codec=AesGcmCodec(keys))


def for_workers(converter: DataConverter, holders: KeyHolders | None = None,
                missing: MissingKeys | None = None) -> DataConverter:
    """The same keys, as a worker decodes: markers for what does not open, Undecodable for handlers. `holders`:
    which keys the other live workers hold; `missing`: reports a key this worker lacks (codec/missing_keys.py).
    A converter that decodes as a worker already is returned as it is."""
    codec = converter.payload_codec
    if not isinstance(codec, AesGcmCodec) or converter.payload_converter_class is WorkerPayloadConverter:
        return converter
    return dataclasses.replace(converter, payload_converter_class=WorkerPayloadConverter,
                               payload_codec=codec.marking(holders, missing))


def key_ids(converter: DataConverter) -> list[str]:
    """The codec keys a converter holds (none when it does not encrypt)."""
    codec = converter.payload_codec
    return codec.key_ids if isinstance(codec, AesGcmCodec) else []


def describe_codec(converter: DataConverter) -> str:
    codec = converter.payload_codec
    return codec.describe() if isinstance(codec, AesGcmCodec) else "off: no azmc codec"
