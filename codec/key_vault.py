"""Codec keys from Azure Key Vault: one secret whose value is the same JSON as AZMC_CODEC_KEYS.

Rotate by writing a new version of the secret with the new key added last. The identity is
azure-identity's DefaultAzureCredential (managed identity, workload identity, a service principal's
AZURE_* variables); it needs the "Key Vault Secrets User" role on the vault.
"""

from typing import Any
from urllib.parse import urlparse

from codec.keys import CodecKeyError, KeyRing, parse_keys

DEFAULT_SECRET = "azmc-codec-keys"


def check_vault_url(url: str) -> str:
    parsed = urlparse(url)
    if parsed.scheme != "https" or not parsed.hostname:
        raise CodecKeyError(f"AZMC_CODEC_KEY_VAULT_URL {url!r}: a vault URL such as https://<vault>.vault.azure.net")
    return url


def keys_from_secret_value(value: str | None, vault_url: str, secret: str) -> KeyRing:
    if not value:
        raise CodecKeyError(f"Key Vault secret {secret!r} in {vault_url} is empty")
    return parse_keys(value, f"Key Vault secret {secret!r} in {vault_url}")


def load_from_key_vault(vault_url: str, secret: str = DEFAULT_SECRET, credential: Any = None) -> KeyRing:
    from azure.core.exceptions import AzureError
    from azure.identity import DefaultAzureCredential

    try:
        from azure.keyvault.secrets import SecretClient
    except ImportError:  # an optional extra: the azmc image leaves it out unless built with it
        raise CodecKeyError("AZMC_CODEC_KEY_VAULT_URL needs azure-keyvault-secrets, which this installation lacks: "
                            "build the image with `--build-arg LOCK=image-keyvault`, or install azmc's keyvault "
                            "extra (`pip install '.[keyvault]'` in a checkout)") from None

    client = SecretClient(check_vault_url(vault_url), credential or DefaultAzureCredential())
    try:
        value = client.get_secret(secret).value
    except AzureError as error:
        reason = str(error).splitlines()[0][:200] if str(error) else type(error).__name__
        raise CodecKeyError(f"cannot read Key Vault secret {secret!r} from {vault_url}: {reason}") from None
    finally:
        client.close()
    return keys_from_secret_value(value, vault_url, secret)
