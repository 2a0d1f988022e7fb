"""azmc's DataConverter: pydantic JSON payloads, sealed by the AES-GCM codec.

Failures: the codec seals their details (ApplicationError details, heartbeat details), while their
messages and stack traces stay readable (the default failure converter, not one with
`encode_common_attributes`): azmc writes no secret into a message, and an operator reading a failed
workflow in any UI needs them. Search attributes are never encrypted (the server indexes them) and the
static summary names only the machine, size and place: neither holds a secret by design.
"""

import dataclasses

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter

from codec.aes_gcm import AesGcmCodec
from codec.keys import KeyRing


def azmc_data_converter(keys: KeyRing) -> DataConverter:
    """With no keys nothing is encrypted, but an encrypted payload still fails naming its key id."""
    return dataclasses.replace(pydantic_data_converter, payload_codec=AesGcmCodec(keys))
