"""`azmc codec-server`'s HTTP API as the Temporal UI and CLI call it: /encode and /decode with Payloads JSON,
CORS for the UI's origin only, an optional bearer token, a missing key named."""

import base64
import json

from aiohttp.test_utils import TestClient, TestServer
from typer.testing import CliRunner

from cli.commands import app
from codec.keys import new_key_json, parse_keys
from codec.server import codec_app

KEYS = parse_keys(new_key_json("k1"), "test")
UI = "http://localhost:8233"
PLAIN = {"payloads": [{"metadata": {"encoding": base64.b64encode(b"json/plain").decode()},
                       "data": base64.b64encode(b'{"custom_data": "t0ken"}').decode()}]}


async def _client(token: str = "", keys=KEYS) -> TestClient:
    client = TestClient(TestServer(codec_app(keys, (UI,), token), host="127.0.0.1"))
    await client.start_server()
    return client


async def test_encode_then_decode_round_trips_and_hides_the_data() -> None:
    client = await _client()
    try:
        encoded = await (await client.post("/encode", json=PLAIN)).json()
        (sealed,) = encoded["payloads"]
        assert base64.b64decode(sealed["metadata"]["encoding"]) == b"binary/encrypted"
        assert base64.b64decode(sealed["metadata"]["encryption-key-id"]) == b"k1"
        assert b"t0ken" not in base64.b64decode(sealed["data"])
        decoded = await (await client.post("/decode", json=encoded)).json()
        assert decoded == PLAIN
    finally:
        await client.close()


async def test_cors_answers_the_ui_origin_only() -> None:
    client = await _client()
    try:
        preflight = await client.options("/decode", headers={
            "Origin": UI, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-namespace"})
        assert preflight.status == 200 and preflight.headers["Access-Control-Allow-Origin"] == UI
        assert "X-Namespace" in preflight.headers["Access-Control-Allow-Headers"]
        other = await client.post("/decode", json=PLAIN, headers={"Origin": "http://evil.example"})
        assert other.status == 200 and "Access-Control-Allow-Origin" not in other.headers
    finally:
        await client.close()


async def test_token_is_required_when_set_and_a_bad_body_is_400() -> None:
    client = await _client(token="s3cret")
    try:
        assert (await client.post("/decode", json=PLAIN)).status == 401
        assert (await client.post("/decode", json=PLAIN, headers={"Authorization": "Bearer wrong"})).status == 401
        ok = await client.post("/decode", json=PLAIN, headers={"Authorization": "Bearer s3cret", "Origin": UI})
        assert ok.status == 200 and ok.headers["Access-Control-Allow-Origin"] == UI
        bad = await client.post("/decode", data="nope", headers={"Authorization": "Bearer s3cret"})
        assert bad.status == 400
    finally:
        await client.close()


async def test_missing_key_is_named() -> None:
    first = await _client()
    sealed = await (await first.post("/encode", json=PLAIN)).json()
    await first.close()
    other = await _client(keys=parse_keys(new_key_json("k0"), "test"))
    try:
        answer = await other.post("/decode", data=json.dumps(sealed))
        assert answer.status == 400 and "codec key 'k1'" in (await answer.json())["error"]
    finally:
        await other.close()


def test_off_loopback_without_a_token_is_refused(monkeypatch) -> None:
    monkeypatch.delenv("AZMC_CODEC_SERVER_TOKEN", raising=False)
    done = CliRunner().invoke(app, ["codec-server", "--host", "0.0.0.0"])
    assert done.exit_code == 1 and "set AZMC_CODEC_SERVER_TOKEN" in done.stderr
    monkeypatch.delenv("AZMC_CODEC_KEYS", raising=False)
    monkeypatch.delenv("AZMC_CODEC_KEYS_FILE", raising=False)
    done = CliRunner().invoke(app, ["codec-server"])
    assert done.exit_code == 1 and "no codec keys" in done.stderr


def _sealed(key_id: str, data: bytes) -> dict[str, list[dict[str, dict[str, str] | str]]]:
    metadata = {"encoding": b"binary/encrypted", **({"encryption-key-id": key_id.encode()} if key_id else {})}
    return {"payloads": [{"metadata": {k: base64.b64encode(v).decode() for k, v in metadata.items()},
                          "data": base64.b64encode(data).decode()}]}


UNOPENABLE = [
    ("k1", b"\x00\x00\x00", "3 bytes, shorter than an AES-GCM nonce and tag"),  # `--input AAAA` with the real id
    ("k1", bytes(12), "12 bytes, shorter than an AES-GCM nonce and tag"),
    ("nokey", bytes(range(40)), "codec key 'nokey', which this process does not have"),
    ("k1", bytes(range(40)), "does not open with codec key 'k1'"),
    ("", bytes(range(40)), "names no codec key"),
]


async def test_a_payload_that_does_not_open_is_400_with_one_line() -> None:
    """Any ciphertext the server cannot open: 400 and one line naming why, never a 500 with a traceback."""
    client = await _client()
    try:
        for key_id, data, reason in UNOPENABLE:
            answer = await client.post("/decode", json=_sealed(key_id, data), headers={"Origin": UI})
            body = await answer.json()
            assert answer.status == 400 and reason in body["error"], (key_id, data, body)
            assert "\n" not in body["error"] and "Traceback" not in body["error"]
            assert answer.headers["Access-Control-Allow-Origin"] == UI  # the UI shows the line
    finally:
        await client.close()


async def test_a_worker_decodes_the_same_bytes_into_a_marker_naming_why() -> None:
    """The worker's codec does not raise on them: a marker with the reason and nothing of the data."""
    from temporalio.api.common.v1 import Payload

    from codec.aes_gcm import AesGcmCodec
    from codec.undecodable import read_marker

    for key_id, data, reason in UNOPENABLE:
        metadata = {"encoding": b"binary/encrypted", **({"encryption-key-id": key_id.encode()} if key_id else {})}
        (decoded,) = await AesGcmCodec(KEYS).marking().decode([Payload(metadata=metadata, data=data)])
        found = read_marker(decoded)
        assert found is not None and reason in found.reason and decoded.data == b""
        assert found.depends_on_keys == (reason.startswith(("codec key", "does not open")))
