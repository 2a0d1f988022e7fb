"""AzureConfig: plain http only on loopback; the token never shows in repr (pure)."""

import pytest
from pydantic import ValidationError

from activities.config import AzureConfig, is_loopback_host


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:8910", "http://127.5.6.7", "http://localhost:1",
                                      "http://[::1]:8910", "https://management.azure.com", None])
def test_accepted_endpoints(endpoint: str | None) -> None:
    assert AzureConfig(installation_id="tests", subscription_id="s", endpoint=endpoint).endpoint == endpoint


@pytest.mark.parametrize("endpoint", ["http://10.0.0.1:8910", "http://management.azure.com",
                                      "http://localhost.evil.com", "ftp://127.0.0.1", "127.0.0.1:8910"])
def test_plain_http_to_anything_but_loopback_is_refused(endpoint: str) -> None:
    with pytest.raises(ValidationError) as info:
        AzureConfig(installation_id="tests", subscription_id="s", endpoint=endpoint)
    assert endpoint in str(info.value)


def test_plain_http_flag_and_secret_repr() -> None:
    config = AzureConfig(installation_id="tests", subscription_id="s", endpoint="http://127.0.0.1:1",
                         emulator_token="sekrit-token")
    assert config.plain_http
    assert "sekrit-token" not in repr(config)
    assert not AzureConfig(installation_id="tests", subscription_id="s").plain_http


def test_loopback_detection() -> None:
    assert is_loopback_host("127.0.0.1") and is_loopback_host("::1") and is_loopback_host("LOCALHOST")
    assert not is_loopback_host("192.168.1.1") and not is_loopback_host("example.com")


async def test_public_azure_uses_default_credential_and_emulator_a_static_token() -> None:
    from azure.identity.aio import DefaultAzureCredential

    from activities.clients import StaticTokenCredential, build_clients

    public = build_clients(AzureConfig(installation_id="tests", subscription_id="s"))
    emulated = build_clients(AzureConfig(installation_id="tests", subscription_id="s", endpoint="http://127.0.0.1:1",
                                         emulator_token="tk"))
    try:
        assert isinstance(public.credential, DefaultAzureCredential)
        assert isinstance(emulated.credential, StaticTokenCredential)
        assert (await emulated.credential.get_token("scope")).token == "tk"
        assert "tk" not in repr(emulated.credential)
    finally:
        await public.close()
        await emulated.close()
