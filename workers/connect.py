"""Connect to Temporal from settings, turning connection failures into one line that says what to do."""

from collections.abc import Sequence
from pathlib import Path

from temporalio.client import Client, Plugin
from temporalio.converter import DataConverter
from temporalio.runtime import Runtime
from temporalio.service import TLSConfig

from codec.converter import azmc_data_converter
from codec.keys import CodecKeyError, KeyRing
from codec.sources import load_keyring
from workers.settings import Settings, SettingsError


def _read(path: Path | None, variable: str) -> bytes | None:
    if path is None:
        return None
    try:
        return path.read_bytes()
    except OSError as error:
        raise SettingsError(f"cannot read {variable} {str(path)!r}: {error.strerror}") from None


def tls_config(settings: Settings) -> TLSConfig | bool:
    """What `Client.connect(tls=...)` gets: False (plain), True (system roots) or a TLSConfig (mTLS, own CA,
    server name). Reads the files, so an unreadable one stops the process with one line naming the variable."""
    if not settings.uses_tls:
        return False
    config = TLSConfig(
        client_cert=_read(settings.temporal_tls_cert, "AZMC_TEMPORAL_TLS_CERT"),
        client_private_key=_read(settings.temporal_tls_key, "AZMC_TEMPORAL_TLS_KEY"),
        server_root_ca_cert=_read(settings.temporal_tls_ca, "AZMC_TEMPORAL_TLS_CA"),
        domain=settings.temporal_tls_server_name or None,
    )
    return config if config != TLSConfig() else True


def codec_keys(settings: Settings) -> KeyRing:
    """The keys this process encrypts and decrypts payloads with; a bad source stops it with one line."""
    try:
        return load_keyring(settings.codec_keys.get_secret_value() if settings.codec_keys else None,
                            settings.codec_keys_file, settings.codec_key_vault_url, settings.codec_key_vault_secret)
    except CodecKeyError as error:
        raise SettingsError(str(error)) from None


def data_converter(settings: Settings) -> DataConverter:
    return azmc_data_converter(codec_keys(settings))


async def connect(settings: Settings, runtime: Runtime | None = None, plugins: Sequence[Plugin] = ()) -> Client:
    """`plugins`: the worker's tracing (workers/tracing.py), none otherwise."""
    api_key = settings.temporal_api_key.get_secret_value() if settings.temporal_api_key else None
    try:
        return await Client.connect(
            settings.temporal_address,
            namespace=settings.temporal_namespace,
            tls=tls_config(settings),
            api_key=api_key,
            data_converter=data_converter(settings),
            runtime=runtime,
            plugins=list(plugins),
        )
    except RuntimeError as error:
        reason = str(error).split(": ", 1)[-1][:160]
        raise SettingsError(
            f"cannot reach Temporal at {settings.temporal_address} ({reason}); start one with `azmc dev` "
            "or set AZMC_TEMPORAL_ADDRESS / --temporal-address"
        ) from None
