"""Temporal over TLS: settings -> the TLSConfig `Client.connect` gets (pure), then `azmc` through a real mTLS
front of a real dev server: with the client certificate it works, without it it is refused in one line."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.service import TLSConfig
from typer.testing import CliRunner

from cli.commands import app
from tests.e2e.stack import DevServer
from tests.support.certs import Pki, make_pki
from tests.support.tls_proxy import MtlsProxy
from workers.connect import tls_config
from workers.settings import SettingsError, load_settings

SERVER_NAME = "temporal.azmc.test"


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("AZMC_"):
            monkeypatch.delenv(key)


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"), SERVER_NAME, "azmc-worker")


def test_plain_system_roots_and_mtls_settings(pki: Pki) -> None:
    assert tls_config(load_settings()) is False
    assert tls_config(load_settings(temporal_tls=True)) is True
    assert tls_config(load_settings(temporal_api_key="k")) is True  # Temporal Cloud: an API key implies TLS
    mtls = tls_config(load_settings(temporal_tls_cert=pki.client_cert, temporal_tls_key=pki.client_key,
                                    temporal_tls_ca=pki.ca, temporal_tls_server_name=SERVER_NAME))  # fmt: skip
    assert mtls == TLSConfig(client_cert=pki.client_cert.read_bytes(), client_private_key=pki.client_key.read_bytes(),
                             server_root_ca_cert=pki.ca.read_bytes(), domain=SERVER_NAME)  # fmt: skip
    own_ca = tls_config(load_settings(temporal_tls_ca=pki.ca))  # a private CA alone implies TLS
    assert isinstance(own_ca, TLSConfig) and own_ca.server_root_ca_cert == pki.ca.read_bytes()


def test_an_unreadable_file_names_its_variable(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="AZMC_TEMPORAL_TLS_CA"):
        tls_config(load_settings(temporal_tls_ca=tmp_path / "missing.pem"))


@pytest.fixture(scope="module")
def mtls_front(pki: Pki, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MtlsProxy]:
    logs = tmp_path_factory.mktemp("tls-server")
    server = DevServer(db_path=logs / "temporal.db", log_path=logs / "temporal.log")
    server.start()
    try:
        with MtlsProxy(pki, server.port).running() as proxy:
            yield proxy
    finally:
        server.stop()


def _get(proxy: MtlsProxy, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    for key, value in {"AZMC_TEMPORAL_ADDRESS": f"127.0.0.1:{proxy.port}", **env}.items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(app, ["get"])
    return result.exit_code, result.stdout, result.stderr


def test_azmc_reaches_temporal_through_mtls(mtls_front: MtlsProxy, pki: Pki, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"AZMC_TEMPORAL_TLS_CERT": str(pki.client_cert), "AZMC_TEMPORAL_TLS_KEY": str(pki.client_key),
           "AZMC_TEMPORAL_TLS_CA": str(pki.ca), "AZMC_TEMPORAL_TLS_SERVER_NAME": SERVER_NAME}  # fmt: skip
    code, stdout, stderr = _get(mtls_front, env, monkeypatch)
    assert code == 0, stderr
    assert "no machines" in stdout
    assert "azmc-worker" in mtls_front.client_names  # the server saw and accepted our client certificate


def test_without_the_client_certificate_the_server_refuses(mtls_front: MtlsProxy, pki: Pki,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    env = {"AZMC_TEMPORAL_TLS_CA": str(pki.ca), "AZMC_TEMPORAL_TLS_SERVER_NAME": SERVER_NAME}
    code, _, stderr = _get(mtls_front, env, monkeypatch)
    assert code == 1
    assert len(stderr.strip().splitlines()) == 1 and "cannot reach Temporal" in stderr
