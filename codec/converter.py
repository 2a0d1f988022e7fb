"""azmc's DataConverter: pydantic JSON payloads, sealed by the AES-GCM codec.

Failures: the codec seals their details (ApplicationError details, heartbeat details), while their
messages and stack traces stay readable (the default failure converter, not one with
`encode_common_attributes`): azmc writes no secret into a message, and an operator reading a failed
workflow in any UI needs them. Search attributes are never encrypted (the server indexes them) and the
static summary names only the machine, size and place: neither holds a secret by design.
"""

import dataclasses
from collections.abc import Sequence
from typing import Any

from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import PydanticPayloadConverter, pydantic_data_converter
from temporalio.converter import DataConverter

from codec.aes_gcm import AesGcmCodec
from codec.keys import KeyRing
from models.audit import AUDIT_METADATA, TRAIL, Audited


class AzmcPayloadConverter(PydanticPayloadConverter):
    """Pydantic JSON, plus an activity result's audit trail in the payload's metadata (models/audit.py):
    the value decodes exactly as without it."""

    def to_payloads(self, values: Sequence[Any]) -> list[Payload]:
        payloads = super().to_payloads([v.value if isinstance(v, Audited) else v for v in values])
        for value, payload in zip(values, payloads, strict=True):
            if isinstance(value, Audited):
                payload.metadata[AUDIT_METADATA] = TRAIL.dump_json(value.trail)
        return payloads


def azmc_data_converter(keys: KeyRing) -> DataConverter:
    """With no keys nothing is encrypted, but an encrypted payload still fails naming its key id."""
    return dataclasses.replace(pydantic_data_converter, payload_converter_class=AzmcPayloadConverter,
                               payload_codec=AesGcmCodec(keys))


def describe_codec(converter: DataConverter) -> str:
    codec = converter.payload_codec
    return codec.describe() if isinstance(codec, AesGcmCodec) else "off: no azmc codec"
