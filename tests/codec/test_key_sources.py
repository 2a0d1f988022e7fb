"""Where keys come from: AZMC_CODEC_KEYS, AZMC_CODEC_KEYS_FILE, Key Vault's secret value (parsing only:
Key Vault itself cannot be reached from the test machine), merged so the newest source's last key encrypts."""

import sys
from pathlib import Path

import pytest

from codec.key_vault import check_vault_url, keys_from_secret_value
from codec.keys import CodecKeyError, new_key_json
from workers.connect import codec_keys
from workers.settings import SettingsError, load_settings


def test_env_and_file_merge_and_the_file_key_encrypts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "keys.json").write_text(new_key_json("from-file"))
    monkeypatch.setenv("AZMC_CODEC_KEYS", new_key_json("from-env"))
    monkeypatch.setenv("AZMC_CODEC_KEYS_FILE", str(tmp_path / "keys.json"))
    ring = codec_keys(load_settings())
    assert list(ring.keys) == ["from-env", "from-file"] and ring.current == "from-file"


def test_unreadable_file_and_bad_variable_stop_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZMC_CODEC_KEYS_FILE", str(tmp_path / "missing.json"))
    with pytest.raises(SettingsError, match=r"cannot read AZMC_CODEC_KEYS_FILE .*missing\.json"):
        codec_keys(load_settings())
    monkeypatch.delenv("AZMC_CODEC_KEYS_FILE")
    monkeypatch.setenv("AZMC_CODEC_KEYS", '{"k": 1}')
    with pytest.raises(SettingsError, match="AZMC_CODEC_KEYS: key 'k' must be base64"):
        codec_keys(load_settings())


def test_no_source_means_no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZMC_CODEC_KEYS", "AZMC_CODEC_KEYS_FILE", "AZMC_CODEC_KEY_VAULT_URL"):
        monkeypatch.delenv(name, raising=False)
    assert not codec_keys(load_settings())


def test_key_vault_secret_value_is_the_same_json() -> None:
    ring = keys_from_secret_value(new_key_json("kv-1"), "https://v.vault.azure.net", "azmc-codec-keys")
    assert ring.current == "kv-1"
    with pytest.raises(CodecKeyError, match=r"'azmc-codec-keys' in https://v\.vault\.azure\.net is empty"):
        keys_from_secret_value("", "https://v.vault.azure.net", "azmc-codec-keys")
    with pytest.raises(CodecKeyError, match=r"Key Vault secret 'azmc-codec-keys' .*: not JSON"):
        keys_from_secret_value("nope", "https://v.vault.azure.net", "azmc-codec-keys")
    with pytest.raises(CodecKeyError, match="a vault URL such as https://"):
        check_vault_url("http://v.vault.azure.net")


def test_key_vault_without_its_extra_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The image leaves azure-keyvault-secrets out unless built with it: the worker stops with one line."""
    monkeypatch.setitem(sys.modules, "azure.keyvault.secrets", None)  # what an installation without it imports
    monkeypatch.setenv("AZMC_CODEC_KEY_VAULT_URL", "https://v.vault.azure.net")
    with pytest.raises(SettingsError, match=r"needs azure-keyvault-secrets.*LOCK=image-keyvault"):
        codec_keys(load_settings())
