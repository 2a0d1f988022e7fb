"""What another terminal exports to use the stack `azmc dev` runs: `azmc` and the `temporal` CLI reach this
stack (whatever its ports), read its encrypted payloads and see its emulator, instead of whatever listens
on the default ports."""

import os
import shlex

from cli.stack import DEV_NAMESPACE, StackConfig, trace_file
from cli.stack_keys import dev_keys_file
from workers.settings import TASK_QUEUE
from workers.tracing import TRACE_FILE_ENV

# Settings the stack's worker takes from this terminal's environment, which the other one must share. Secrets
# (AZMC_CODEC_KEYS, AZMC_TEMPORAL_API_KEY) are never printed: the note after the exports says so.
_SHARED = ("AZMC_TASK_QUEUE", "AZMC_INSTALLATION_ID", "AZMC_AZURE_SUBSCRIPTION_ID", "AZMC_CODEC_KEYS_FILE",
           "AZMC_CODEC_KEY_VAULT_URL", "AZMC_CODEC_KEY_VAULT_SECRET")


def dev_exports(config: StackConfig) -> dict[str, str]:
    keys = dev_keys_file(config.state_dir)
    exports = {
        "AZMC_TEMPORAL_ADDRESS": config.temporal_address,
        "AZMC_TEMPORAL_NAMESPACE": DEV_NAMESPACE,
        "AZMC_TASK_QUEUE": TASK_QUEUE,
        "AZMC_AZURE_ENDPOINT": config.emulator_url,  # `azmc get` also lists abandoned resources
        **{name: os.environ[name] for name in _SHARED if os.environ.get(name)},
        **({"AZMC_CODEC_KEYS_FILE": str(keys)} if keys else {}),
        "TEMPORAL_ADDRESS": config.temporal_address,
        "TEMPORAL_NAMESPACE": DEV_NAMESPACE,
        "TEMPORAL_CODEC_ENDPOINT": config.codec_url,  # `temporal workflow query/result` print decoded answers
        TRACE_FILE_ENV: str(trace_file(config)),  # `azmc trace` reads the worker's spans
    }
    return exports


def export_lines(config: StackConfig) -> list[str]:
    """`export NAME=value` lines, quoted for a POSIX shell, and a note when a secret must be shared too."""
    lines = [f"export {name}={shlex.quote(value)}" for name, value in dev_exports(config).items()]
    if os.environ.get("AZMC_CODEC_KEYS"):
        lines.append("# and AZMC_CODEC_KEYS, as in this terminal (a secret: not printed)")
    return lines
