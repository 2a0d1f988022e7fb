"""Sovereign clouds: the ARM endpoint, the token scopes and the authority follow the cloud; the fixed
emulator token only ever goes to a loopback emulator (pure selection, then the real SDK client objects)."""

import pytest
from pydantic import ValidationError

from activities.clients import StaticTokenCredential, build_clients
from activities.cloud import AzureCloud, arm_target, cloud_of_endpoint
from activities.config import AzureConfig
from workers.settings import SettingsError, load_settings

EXPECTED = {
    AzureCloud.PUBLIC: ("https://management.azure.com", "https://management.azure.com/.default",
                        "login.microsoftonline.com"),
    AzureCloud.US_GOVERNMENT: ("https://management.usgovcloudapi.net",
                               "https://management.core.usgovcloudapi.net/.default", "login.microsoftonline.us"),
    AzureCloud.CHINA: ("https://management.chinacloudapi.cn", "https://management.chinacloudapi.cn/.default",
                       "login.chinacloudapi.cn"),
}  # fmt: skip


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in ("AZMC_AZURE_ENDPOINT", "AZMC_AZURE_CLOUD", "AZMC_AZURE_TOKEN", "AZMC_AZURE_SUBSCRIPTION_ID",
                "AZURE_CLOUD"):  # fmt: skip
        monkeypatch.delenv(key, raising=False)


@pytest.mark.parametrize("cloud", list(AzureCloud))
def test_each_cloud_selects_its_endpoint_scope_and_authority(cloud: AzureCloud) -> None:
    base_url, scope, authority = EXPECTED[cloud]
    target = arm_target(cloud)
    assert (target.base_url, target.credential_scopes, target.authority) == (base_url, (scope,), authority)
    assert cloud_of_endpoint(base_url + "/") == cloud  # the cloud is also derived from its endpoint
    assert arm_target(None, base_url).cloud == cloud


def test_default_is_public_azure_and_the_emulator_keeps_its_url() -> None:
    assert arm_target().cloud == AzureCloud.PUBLIC
    emulated = arm_target(AzureCloud.US_GOVERNMENT, "http://127.0.0.1:8910/")
    assert emulated.base_url == "http://127.0.0.1:8910" and emulated.authority == "login.microsoftonline.us"
    assert cloud_of_endpoint("http://127.0.0.1:8910") is None


def test_a_cloud_that_contradicts_the_endpoint_is_refused() -> None:
    with pytest.raises(ValidationError, match="AzureChinaCloud"):
        AzureConfig(subscription_id="s", cloud=AzureCloud.CHINA, endpoint="https://management.usgovcloudapi.net")


@pytest.mark.parametrize("endpoint", [None, "https://management.usgovcloudapi.net", "https://arm-proxy.example.com"])
def test_the_emulator_token_is_refused_for_anything_but_loopback(endpoint: str | None) -> None:
    with pytest.raises(ValidationError, match="only for a loopback emulator"):
        AzureConfig(subscription_id="s", endpoint=endpoint, emulator_token="azmc-emulator")
    assert AzureConfig(subscription_id="s", endpoint=endpoint).emulator_token is None


def test_settings_use_the_fixed_token_only_for_a_loopback_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings(azure_endpoint="http://localhost:8910").emulator_token() == "azmc-emulator"
    sovereign = load_settings(azure_endpoint="https://management.usgovcloudapi.net")
    assert not sovereign.emulator_mode and sovereign.emulator_token() is None
    with pytest.raises(SettingsError, match="AZMC_AZURE_SUBSCRIPTION_ID"):  # no seed subscription outside the emulator
        sovereign.subscription()
    monkeypatch.setenv("AZMC_AZURE_TOKEN", "secret")
    with pytest.raises(SettingsError, match="AZMC_AZURE_TOKEN is only for the emulator"):
        load_settings(azure_endpoint="https://management.usgovcloudapi.net").emulator_token()


def test_cloud_setting_is_validated_with_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZMC_AZURE_CLOUD", "AzureGermany")
    with pytest.raises(SettingsError, match="invalid AZMC_AZURE_CLOUD"):
        load_settings()
    monkeypatch.setenv("AZMC_AZURE_CLOUD", "AzureChinaCloud")
    from workers.worker import azure_config

    config = azure_config(load_settings(azure_subscription_id="s"))
    assert config.target.base_url == "https://management.chinacloudapi.cn" and config.emulator_token is None


@pytest.mark.parametrize("cloud", [AzureCloud.US_GOVERNMENT, AzureCloud.CHINA])
async def test_real_clients_and_credential_target_the_sovereign_cloud(cloud: AzureCloud,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    base_url, scope, authority = EXPECTED[cloud]
    # Service-principal variables make DefaultAzureCredential's first link a ClientSecretCredential (no network).
    for key, value in {"AZURE_TENANT_ID": "t", "AZURE_CLIENT_ID": "c", "AZURE_CLIENT_SECRET": "x"}.items():
        monkeypatch.setenv(key, value)
    clients = build_clients(AzureConfig(subscription_id="s", cloud=cloud))
    try:
        for client in (clients.compute, clients.network, clients.graph):
            # compute/network keep the URL in their config ("{endpoint}" in the pipeline), graph in its pipeline
            url = getattr(client._config, "base_url", None) or client._client._base_url
            assert url == base_url
            assert list(client._config.credential_scopes) == [scope]
            assert client._config.authentication_policy._scopes == (scope,)  # what the bearer policy asks for
        environment = clients.credential.credentials[0]
        assert environment._credential._client._authority == f"https://{authority}"
    finally:
        await clients.close()


async def test_emulator_clients_keep_the_static_token_and_loopback_url() -> None:
    clients = build_clients(AzureConfig(subscription_id="s", endpoint="http://127.0.0.1:1", emulator_token="tk"))
    try:
        assert isinstance(clients.credential, StaticTokenCredential)
        assert clients.compute._config.base_url == "http://127.0.0.1:1"
    finally:
        await clients.close()
