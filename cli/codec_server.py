"""`azmc codec-server`: decode (and encode) payloads for the Temporal UI and CLI with this installation's keys.

The UI: Settings > Codec Server (or `temporal server start-dev --ui-codec-endpoint`), the URL of this
server; the CLI: `temporal workflow show --codec-endpoint URL [--codec-auth "Bearer TOKEN"]`. It decrypts
what it is sent, so off loopback it needs a token (AZMC_CODEC_SERVER_TOKEN: environment only, never a flag
that `ps` would show).
"""

import ipaddress
import os
from typing import Annotated

import typer

from workers.connect import codec_keys
from workers.settings import SettingsError, load_settings

TOKEN_ENV = "AZMC_CODEC_SERVER_TOKEN"
DEFAULT_PORT = 8234


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(host: str, port: int, ui_origins: list[str]) -> None:
    """Run until stopped; a bad setting raises SettingsError with one line."""
    # Here, not at the top: every other `azmc` command would import aiohttp's server for nothing.
    from aiohttp import web

    from codec.server import codec_app

    token = os.environ.get(TOKEN_ENV, "")
    if not _loopback(host) and not token:
        raise SettingsError(f"codec server on {host}: off loopback it decrypts for anyone; set {TOKEN_ENV}")
    keys = codec_keys(load_settings())
    if not keys:
        raise SettingsError("no codec keys: set AZMC_CODEC_KEYS, AZMC_CODEC_KEYS_FILE or AZMC_CODEC_KEY_VAULT_URL")
    print(f"codec server on http://{host}:{port} (keys: {', '.join(keys.keys)}; UI origins: "
          f"{', '.join(ui_origins) or 'none'}; token {'required' if token else 'not required'})", flush=True)
    web.run_app(codec_app(keys, tuple(ui_origins), token), host=host, port=port, print=None)


def codec_server(
    host: Annotated[str, typer.Option(help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = DEFAULT_PORT,
    ui_origin: Annotated[list[str] | None, typer.Option(
        help="the Temporal UI's origin, allowed to call from the browser (repeatable), e.g. http://localhost:8233",
    )] = None,
) -> None:
    """Serve /encode and /decode for the Temporal UI and CLI with this installation's codec keys."""
    from cli.errors import fail

    try:
        serve(host, port, ui_origin or [])
    except SettingsError as error:
        fail(str(error))
