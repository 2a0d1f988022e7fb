"""Encryption in the embedded stack: `azmc dev` runs as production does, payloads sealed, the UI decoding
them through an `azmc codec-server`.

Keys: the environment's (AZMC_CODEC_KEYS, _FILE, _KEY_VAULT_URL) when set, else a dev key generated once
into the state directory (`codec-keys.json`, mode 0600), which the worker, the codec server and `azmc demo`
get as AZMC_CODEC_KEYS_FILE. Other terminals export the same variable (the dev panel says so).
"""

import os
from datetime import UTC, datetime
from pathlib import Path

from codec.keys import new_key_json

KEY_SOURCES = ("AZMC_CODEC_KEYS", "AZMC_CODEC_KEYS_FILE", "AZMC_CODEC_KEY_VAULT_URL")
DEV_KEYS_FILE = "codec-keys.json"


def dev_keys_file(state_dir: Path) -> Path | None:
    """The dev key file (made when missing), or None when the environment configures keys itself."""
    if any(os.environ.get(name) for name in KEY_SOURCES):
        return None
    path = (state_dir / DEV_KEYS_FILE).resolve()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(new_key_json(f"dev-{datetime.now(UTC):%Y%m%d}"))
    return path


def codec_env(state_dir: Path) -> dict[str, str]:
    """What the stack's children add to their environment for the keys."""
    path = dev_keys_file(state_dir)
    return {"AZMC_CODEC_KEYS_FILE": str(path)} if path else {}
