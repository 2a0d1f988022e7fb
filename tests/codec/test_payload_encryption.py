"""AES-256-GCM payload codec: sealed payloads name their key, rotation keeps old payloads readable, a
missing key is one clear error naming it, unencrypted payloads pass through (pure)."""

import base64
import json

import pytest
from temporalio.api.common.v1 import Payload

from codec.aes_gcm import ENCODING, KEY_ID, AesGcmCodec, MissingKeyError
from codec.converter import azmc_data_converter
from codec.keys import KeyRing, new_key_json, parse_keys

OLD = parse_keys(new_key_json("2025-01"), "test")
NEW = OLD.merged(parse_keys(new_key_json("2026-06"), "test"))
SECRET = b'{"custom_data": "kubeadm join --token abcdef.0123456789abcdef"}'


def _payload(data: bytes = SECRET) -> Payload:
    return Payload(metadata={"encoding": b"json/plain"}, data=data)


async def test_sealed_payload_hides_data_and_names_the_newest_key() -> None:
    (sealed,) = await AesGcmCodec(NEW).encode([_payload()])
    assert sealed.metadata["encoding"] == ENCODING and sealed.metadata[KEY_ID] == b"2026-06"
    assert b"0123456789abcdef" not in sealed.SerializeToString()
    (opened,) = await AesGcmCodec(NEW).decode([sealed])
    assert opened == _payload()


async def test_rotated_ring_reads_payloads_of_the_old_key() -> None:
    (old,) = await AesGcmCodec(OLD).encode([_payload()])
    assert old.metadata[KEY_ID] == b"2025-01"
    assert await AesGcmCodec(NEW).decode([old]) == [_payload()]


async def test_missing_key_names_the_key_id() -> None:
    (sealed,) = await AesGcmCodec(NEW).encode([_payload()])
    with pytest.raises(MissingKeyError, match=r"codec key '2026-06', which this process does not have "
                                              r"\(keys: 2025-01\).*AZMC_CODEC_KEYS"):
        await AesGcmCodec(OLD).decode([sealed])
    with pytest.raises(MissingKeyError, match=r"keys: none"):
        await AesGcmCodec(KeyRing()).decode([sealed])


async def test_another_key_under_the_same_id_or_a_moved_key_id_does_not_open() -> None:
    (sealed,) = await AesGcmCodec(NEW).encode([_payload()])
    impostor = parse_keys(new_key_json("2026-06"), "test")
    with pytest.raises(MissingKeyError, match="differs from the one that encrypted it"):
        await AesGcmCodec(impostor).decode([sealed])
    sealed.metadata[KEY_ID] = b"2025-01"
    with pytest.raises(MissingKeyError):
        await AesGcmCodec(NEW).decode([sealed])


async def test_no_keys_encrypts_nothing_and_plain_payloads_pass_through() -> None:
    assert await AesGcmCodec(KeyRing()).encode([_payload()]) == [_payload()]
    assert await AesGcmCodec(NEW).decode([_payload()]) == [_payload()]


async def test_converter_round_trips_and_failure_messages_stay_readable() -> None:
    from temporalio.api.failure.v1 import Failure
    from temporalio.exceptions import ApplicationError

    converter = azmc_data_converter(NEW)
    (payload,) = await converter.encode([{"token": "s3cr3t"}])
    assert b"s3cr3t" not in payload.SerializeToString()
    assert await converter.decode([payload], [dict]) == [{"token": "s3cr3t"}]
    failure = Failure()
    await converter.encode_failure(ApplicationError("VM PUT failed (request id r-1)", {"token": "s3cr3t"}), failure)
    assert failure.message == "VM PUT failed (request id r-1)"
    assert b"s3cr3t" not in failure.SerializeToString()


@pytest.mark.parametrize(("text", "problem"), [
    ("not json", "not JSON"),
    ("{}", "at least one key"),
    ('{"k": "c2hvcnQ="}', "must be base64 of 32 random bytes"),
    ('{"bad id!": "' + base64.b64encode(b"x" * 32).decode() + '"}', "1-64 letters"),
])
def test_bad_key_text_is_named_without_key_bytes(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as caught:
        parse_keys(text, "AZMC_CODEC_KEYS")
    assert str(caught.value).startswith("AZMC_CODEC_KEYS: ")
    assert "c2hvcnQ" not in str(caught.value)


def test_the_last_key_listed_encrypts() -> None:
    ring = parse_keys(json.dumps({**json.loads(new_key_json("a")), **json.loads(new_key_json("b"))}), "t")
    assert ring.current == "b" and list(ring.keys) == ["a", "b"]
    assert "keys" not in repr(ring) or "b'" not in repr(ring)


def test_the_worker_logs_key_ids_never_keys() -> None:
    from codec.converter import describe_codec

    line = describe_codec(azmc_data_converter(NEW))
    assert line == "AES-256-GCM with key 2026-06 (readable: 2025-01, 2026-06)"
    assert all(base64.b64encode(key).decode() not in line for key in NEW.keys.values())
    assert describe_codec(azmc_data_converter(KeyRing())).startswith("off: payloads are not encrypted")
