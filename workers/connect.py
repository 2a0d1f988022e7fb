"""Connect to Temporal from settings, turning connection failures into one line that says what to do."""

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import Runtime
from temporalio.service import TLSConfig

from workers.settings import Settings, SettingsError


def _tls(settings: Settings) -> TLSConfig | bool:
    if settings.temporal_tls_cert and settings.temporal_tls_key:
        try:
            return TLSConfig(
                client_cert=settings.temporal_tls_cert.read_bytes(),
                client_private_key=settings.temporal_tls_key.read_bytes(),
            )
        except OSError as error:
            raise SettingsError(f"cannot read the Temporal TLS certificate or key: {error}") from None
    return settings.uses_tls


async def connect(settings: Settings, runtime: Runtime | None = None) -> Client:
    api_key = settings.temporal_api_key.get_secret_value() if settings.temporal_api_key else None
    try:
        return await Client.connect(
            settings.temporal_address,
            namespace=settings.temporal_namespace,
            tls=_tls(settings),
            api_key=api_key,
            data_converter=pydantic_data_converter,
            runtime=runtime,
        )
    except RuntimeError as error:
        reason = str(error).split(": ", 1)[-1][:160]
        raise SettingsError(
            f"cannot reach Temporal at {settings.temporal_address} ({reason}); start one with `azmc dev` "
            "or set AZMC_TEMPORAL_ADDRESS / --temporal-address"
        ) from None
