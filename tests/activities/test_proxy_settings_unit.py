"""The SDK clients honour a proxy from the environment, and read the environment per request only then."""

import pytest

from activities.clients import PROXY_VARIABLES, build_clients
from activities.config import AzureConfig

CONFIG = AzureConfig(installation_id="unit", subscription_id="00000000-0000-0000-0000-000000000000",
                     endpoint="http://127.0.0.1:9", emulator_token="unit")


def _trusts_env(clients) -> list[bool]:
    return [client._client._pipeline._transport._use_env_settings
            for client in (clients.compute, clients.network, clients.graph)]


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "http_proxy"])
async def test_a_proxy_variable_makes_every_client_use_it(monkeypatch, variable):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, "http://proxy.example:3128")
    clients = build_clients(CONFIG)
    try:
        assert _trusts_env(clients) == [True, True, True]
    finally:
        await clients.close()


async def test_without_a_proxy_no_client_reads_the_environment_per_request(monkeypatch):
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    clients = build_clients(CONFIG)
    try:
        assert _trusts_env(clients) == [False, False, False]
    finally:
        await clients.close()
