"""Where a process's codec keys come from: AZMC_CODEC_KEYS, AZMC_CODEC_KEYS_FILE and Key Vault, merged in
that order (Key Vault's last key, else the file's, else the variable's, encrypts)."""

from pathlib import Path

from codec.key_vault import load_from_key_vault
from codec.keys import CodecKeyError, KeyRing, parse_keys


def load_keyring(env_keys: str | None, keys_file: Path | None, vault_url: str | None,
                 vault_secret: str) -> KeyRing:
    ring = KeyRing()
    if env_keys:
        ring = ring.merged(parse_keys(env_keys, "AZMC_CODEC_KEYS"))
    if keys_file is not None:
        try:
            text = keys_file.read_text()
        except OSError as error:
            raise CodecKeyError(f"cannot read AZMC_CODEC_KEYS_FILE {str(keys_file)!r}: {error.strerror}") from None
        ring = ring.merged(parse_keys(text, f"AZMC_CODEC_KEYS_FILE {str(keys_file)!r}"))
    if vault_url:
        ring = ring.merged(load_from_key_vault(vault_url, vault_secret))
    return ring
