"""The codec server: `POST /encode` and `POST /decode` as the Temporal UI and CLI call them.

Body and answer are `{"payloads": [...]}` in protobuf JSON (temporal.api.common.v1.Payloads). The UI calls
from the browser, so the UI's origin gets CORS headers (a preflight carries no token, so it needs none);
with a token, every POST must carry `Authorization: Bearer <token>` (the CLI's `--codec-auth`, the UI's
"pass access token" setting). Bind it to loopback unless a token and TLS in front protect it: it
decrypts whatever it is sent.
"""

import hmac

from aiohttp import web
from google.protobuf import json_format
from temporalio.api.common.v1 import Payloads

from codec.aes_gcm import AesGcmCodec, UndecodablePayloadError
from codec.keys import KeyRing

_CODEC = web.AppKey("codec", AesGcmCodec)
_TOKEN = web.AppKey("token", str)
_ORIGINS = web.AppKey("origins", tuple)


def _cors(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    origin = request.headers.get("Origin", "")
    if origin and origin in request.app[_ORIGINS]:
        response.headers["Access-Control-Allow-Origin"] = origin
        response.headers["Access-Control-Allow-Credentials"] = "true"
        response.headers["Access-Control-Allow-Methods"] = "POST, OPTIONS"
        response.headers["Access-Control-Allow-Headers"] = "Content-Type, X-Namespace, Authorization"
        response.headers["Vary"] = "Origin"
    return response


def _authorized(request: web.Request) -> bool:
    token = request.app[_TOKEN]
    if not token:
        return True
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


async def _preflight(request: web.Request) -> web.StreamResponse:
    return _cors(request, web.Response(status=200))


def _handler(direction: str):
    async def handle(request: web.Request) -> web.StreamResponse:
        if not _authorized(request):
            return _cors(request, web.json_response({"error": "a bearer token is required"}, status=401))
        try:
            payloads = json_format.Parse(await request.text(), Payloads())
        except (json_format.ParseError, UnicodeDecodeError):
            return _cors(request, web.json_response({"error": "expected {\"payloads\": [...]}"}, status=400))
        codec = request.app[_CODEC]
        try:
            done = await (codec.encode if direction == "encode" else codec.decode)(payloads.payloads)
        except UndecodablePayloadError as error:  # one line naming why: a key id, a length, never the data
            return _cors(request, web.json_response({"error": str(error)}, status=400))
        body = json_format.MessageToJson(Payloads(payloads=done))
        return _cors(request, web.Response(text=body, content_type="application/json"))

    return handle


def codec_app(keys: KeyRing, ui_origins: tuple[str, ...] = (), token: str = "") -> web.Application:
    app = web.Application(client_max_size=8 * 1024 * 1024)
    app[_CODEC] = AesGcmCodec(keys)
    app[_TOKEN] = token
    app[_ORIGINS] = tuple(o.rstrip("/") for o in ui_origins)
    for direction in ("encode", "decode"):
        app.router.add_post(f"/{direction}", _handler(direction))
        app.router.add_route("OPTIONS", f"/{direction}", _preflight)
    return app
