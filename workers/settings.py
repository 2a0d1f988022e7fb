"""Process settings for the worker and the CLI: env vars `AZMC_*`, overridden by command-line flags.

Secrets (Temporal API key, emulator token) are SecretStr so they never reach a log line or a repr.
"""

import os
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from activities.cloud import AzureCloud
from activities.config import check_endpoint, is_loopback_endpoint
from emulator.seed import SEED_SUBSCRIPTION
from models.durations import BOUNDS, Bounded
from models.naming import INSTALLATION_ID_PATTERN
from models.pace import DEFAULT_ARM_PACES, DEFAULT_PACES, Budget
from models.quota import DEFAULT_READ_EVERY
from models.sweep import (
    DEFAULT_MAX_ORPHAN_DELETIONS,
    DEFAULT_MAX_UPGRADE_SIGNALS,
    DEFAULT_ORPHAN_GRACE,
    DEFAULT_SWEEP_INTERVAL,
)
from models.validation import field_path, problem

TASK_QUEUE = "azmc"
METRICS_PORT = 9464  # the worker's Prometheus endpoint by default
DEFAULT_EMULATOR_TOKEN = "azmc-emulator"  # the emulator accepts any non-empty bearer token
# Chosen with bench/scale.py (docs/performance.md): caching every machine of a large fleet costs gigabytes,
# while an evicted one only replays its short history at its next task (every 6 h) or query.
MAX_CACHED_WORKFLOWS = 1000
# Workflow tasks are CPU-bound under one GIL: more slots only queue them inside the worker, where one
# that waits past its 10 s times out (bench/scale.py, docs/performance.md).
MAX_CONCURRENT_WORKFLOW_TASKS = 10
# Polls for workflow tasks: one on the task queue (new machines), the rest on this worker's sticky queue
# (machines it already runs). With the SDK's 1 in 5, a burst of new machines takes so many slots that tasks
# of started ones wait past the sticky queue's 10 s; 1 in 10 keeps them flowing (docs/performance.md).
WORKFLOW_TASK_POLLS = 10


# What the Temporal Worker Controller sets in every pod it runs (temporalio/temporal-worker-controller,
# internal/k8s/deployments.go, ApplyControllerPodSpecModifications): the version it registered and routes to, and
# its Connection to Temporal. Such a worker must poll as that version, so these win over AZMC_* (flags still win),
# and the controller alone decides which version is current (docs/production.md).
CONTROLLER_BUILD_ID = "TEMPORAL_WORKER_BUILD_ID"
CONTROLLER_ENV = {"TEMPORAL_ADDRESS": "temporal_address", "TEMPORAL_NAMESPACE": "temporal_namespace",
                  "TEMPORAL_DEPLOYMENT_NAME": "deployment_name", CONTROLLER_BUILD_ID: "build_id",
                  "TEMPORAL_TLS": "temporal_tls", "TEMPORAL_TLS_CLIENT_CERT_PATH": "temporal_tls_cert",
                  "TEMPORAL_TLS_CLIENT_KEY_PATH": "temporal_tls_key",
                  "TEMPORAL_TLS_SERVER_NAME": "temporal_tls_server_name", "TEMPORAL_API_KEY": "temporal_api_key"}


Source = PydanticBaseSettingsSource


class ControllerSettings(Source):
    """The Temporal Worker Controller's variables, read only in a pod it runs (its build id variable is set)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ reads every variable at once

    def __call__(self) -> dict[str, Any]:
        if not os.environ.get(CONTROLLER_BUILD_ID):
            return {}
        given = {field: os.environ[name] for name, field in CONTROLLER_ENV.items() if os.environ.get(name)}
        return {"make_current": "never", **given}


class SettingsError(ValueError):
    """A setting is missing or wrong; the message is one line that says how to fix it."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AZMC_", extra="ignore", frozen=True)

    # Temporal
    temporal_address: str = "localhost:7233"
    temporal_namespace: str = "default"
    temporal_tls: bool = False
    temporal_tls_cert: Path | None = None
    temporal_tls_key: Path | None = None
    temporal_tls_ca: Path | None = None  # the server's CA, for a cluster whose certificate is not in the system roots
    temporal_tls_server_name: str | None = None  # the name in the server's certificate, when the address differs
    temporal_api_key: SecretStr | None = None
    task_queue: str = TASK_QUEUE
    # Worker Versioning (workers/deployment.py, docs/upgrades.md): the Worker Deployment this worker is a version
    # of; false runs unversioned, for a server without it. make_current: when a starting worker's version
    # becomes the current one (first: only if none is; always: `azmc dev`; never: the operator promotes it).
    # The controller names it <Kubernetes namespace>/<WorkerDeployment>; a build id given overrides this code's own.
    deployment_name: str = Field("azmc", pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}(/[A-Za-z0-9][A-Za-z0-9_-]{0,99})?$")
    build_id: str | None = Field(None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$")
    worker_versioning: bool = True
    make_current: str = Field("first", pattern="^(first|always|never)$")
    # A worker refuses to make its version current on a task queue another deployment's current version serves
    # (every run there would move to it); true moves the task queues to this worker's deployment on purpose.
    take_over: bool = False

    # Worker process
    metrics_port: int = Field(METRICS_PORT, ge=0, le=65535)  # 0 turns the Prometheus endpoint off
    metrics_host: str = "127.0.0.1"
    graceful_shutdown_s: float = 30.0
    max_concurrent_activities: int = Field(200, ge=1)
    # Azure writes a second across the whole installation, per budget (models/pace.py: 80% of Azure's documented
    # limits by default). Every worker of an installation must say the same: the server keeps the last one heard.
    pace_network_per_s: float = Field(DEFAULT_PACES[Budget.NETWORK], gt=0, le=1000)
    pace_compute_writes_per_s: float = Field(DEFAULT_PACES[Budget.COMPUTE_WRITES], gt=0, le=1000)
    pace_compute_updates_per_s: float = Field(DEFAULT_PACES[Budget.COMPUTE_UPDATES], gt=0, le=1000)
    pace_compute_deletes_per_s: float = Field(DEFAULT_PACES[Budget.COMPUTE_DELETES], gt=0, le=1000)
    # Force-delete a VM whose every disk goes with it (activities/force_delete.py): Azure skips the guest's shutdown.
    force_delete_vms: bool = True
    # ARM requests a second across the installation, by kind; each worker sends its share (activities/arm_pace.py).
    pace_arm_reads_per_s: float = Field(DEFAULT_ARM_PACES["reads"], gt=0, le=10000)
    pace_arm_writes_per_s: float = Field(DEFAULT_ARM_PACES["writes"], gt=0, le=10000)
    pace_arm_deletes_per_s: float = Field(DEFAULT_ARM_PACES["deletes"], gt=0, le=10000)
    # Workflows kept in memory between their tasks (sticky cache); one evicted replays its history on its
    # next task or query. Chosen with bench/scale.py: see docs/performance.md.
    max_cached_workflows: int = Field(MAX_CACHED_WORKFLOWS, ge=0)
    max_concurrent_workflow_tasks: int = Field(MAX_CONCURRENT_WORKFLOW_TASKS, ge=1)
    workflow_task_polls: int = Field(WORKFLOW_TASK_POLLS, ge=2)
    log_format: str = Field("text", pattern="^(text|json)$")
    # info: phases and every step's outcome; debug adds each step as it starts (the status shows those).
    log_level: str = Field("info", pattern="^(debug|info|warning|error)$")
    # Temporal's workflow sandbox at run time (workers/sandbox.py): off, because the tests check determinism on
    # the source and by replays, and it costs a third of the worker's CPU; on re-checks it in production.
    workflow_sandbox: bool = False

    # Azure: an endpoint means "talk to this ARM-compatible URL" (a loopback one is the emulator); none
    # means the cloud's ARM. The cloud (default: the endpoint's, else public Azure) sets authority and audience.
    azure_endpoint: str | None = None
    azure_cloud: AzureCloud | None = None
    azure_token: SecretStr | None = None
    azure_subscription_id: str | None = None
    # Which azmc installation owns what this worker creates (the owner tag); unset = the Temporal
    # namespace's id, which differs between clusters and namespaces (workers/installation.py).
    installation_id: str | None = Field(None, pattern=INSTALLATION_ID_PATTERN)

    # Payload encryption (codec/): keys from the variable, a file and/or Azure Key Vault; none = not encrypted.
    codec_keys: SecretStr | None = None
    codec_keys_file: Path | None = None
    codec_key_vault_url: str | None = None
    codec_key_vault_secret: str = "azmc-codec-keys"

    # The fleet sweep (models/sweep.py): the Schedule `azmc-fleet-sweep` runs FleetSweep every interval.
    ensure_schedule: bool = False  # the worker creates or updates the schedule at start
    sweep_interval: Annotated[timedelta, Bounded("sweep_interval", always=True)] = DEFAULT_SWEEP_INTERVAL
    orphan_grace: Annotated[timedelta, Bounded("orphan_grace", always=True)] = DEFAULT_ORPHAN_GRACE
    max_orphan_deletions: int = Field(DEFAULT_MAX_ORPHAN_DELETIONS, ge=0)
    max_upgrade_signals: int = Field(DEFAULT_MAX_UPGRADE_SIGNALS, ge=0)  # per sweep, after a deploy

    # Capacity fallback: machines share one memory of the offerings Azure refused (workflows/offerings/workflow.py).
    # False gives each machine its own, learning only from its own refusals: the baseline of
    # bench/capacity_fallback.py, not a production setting.
    shared_offerings: bool = True
    # Foreseen quota (models/quota.py): the memory reads the compute usages when a claim finds its reading older
    # than this (one ARM read for the whole fleet of a location).
    quota_read_every: Annotated[timedelta, Bounded("quota_read_every", always=True)] = DEFAULT_READ_EVERY

    @classmethod
    def settings_customise_sources(cls, settings_cls: type[BaseSettings], init_settings: Source, env_settings: Source,
                                   dotenv_settings: Source, file_secret_settings: Source) -> tuple[Source, ...]:
        """Flags first, then the Temporal Worker Controller's variables, then AZMC_* (the first with a value wins)."""
        return init_settings, ControllerSettings(settings_cls), env_settings, dotenv_settings, file_secret_settings

    @field_validator("log_level", mode="before")
    @classmethod
    def _level(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value  # AZMC_LOG_LEVEL=DEBUG works too

    @field_validator("graceful_shutdown_s", mode="before")
    @classmethod
    def _grace(cls, value: object) -> float:
        return BOUNDS["graceful_shutdown_s"].check(value).total_seconds()

    @field_validator("azure_endpoint")
    @classmethod
    def _endpoint(cls, value: str | None) -> str | None:
        return check_endpoint(value) if value else value

    @model_validator(mode="after")
    def _tls_pair(self) -> "Settings":
        if bool(self.temporal_tls_cert) != bool(self.temporal_tls_key):
            raise ValueError("give both AZMC_TEMPORAL_TLS_CERT and AZMC_TEMPORAL_TLS_KEY (mTLS), or neither")
        return self

    def paces(self) -> dict[Budget, float]:
        return {Budget.NETWORK: self.pace_network_per_s,
                Budget.COMPUTE_UPDATES: self.pace_compute_updates_per_s,
                Budget.COMPUTE_WRITES: self.pace_compute_writes_per_s,
                Budget.COMPUTE_DELETES: self.pace_compute_deletes_per_s}

    @property
    def emulator_mode(self) -> bool:
        """Only a loopback endpoint is the emulator (fixed token, seed subscription); any other uses azure-identity."""
        return is_loopback_endpoint(self.azure_endpoint)

    @property
    def uses_tls(self) -> bool:
        return (self.temporal_tls or bool(self.temporal_tls_cert) or bool(self.temporal_tls_ca)
                or bool(self.temporal_tls_server_name) or self.temporal_api_key is not None)  # fmt: skip

    def subscription(self) -> str:
        """The subscription to manage; the emulator's seed subscription is the default only in emulator mode."""
        if self.azure_subscription_id:
            return self.azure_subscription_id
        if self.emulator_mode:
            return SEED_SUBSCRIPTION
        raise SettingsError(
            "no Azure subscription: set AZMC_AZURE_SUBSCRIPTION_ID (or --azure-subscription-id), "
            "or AZMC_AZURE_ENDPOINT to use the emulator"
        )

    def emulator_token(self) -> str | None:
        """Static bearer token for the emulator; None means DefaultAzureCredential (real Azure)."""
        if not self.emulator_mode:
            if self.azure_token:
                raise SettingsError("AZMC_AZURE_TOKEN is only for the emulator on a loopback AZMC_AZURE_ENDPOINT; "
                                    "Azure itself is reached through azure-identity")  # fmt: skip
            return None
        return self.azure_token.get_secret_value() if self.azure_token else DEFAULT_EMULATOR_TOKEN


# The flags whose name is not the setting's (`--temporal-address` is temporal_address's; these differ).
FLAGS = {"temporal_namespace": "--namespace", "temporal_tls_cert": "--tls-cert", "temporal_tls_key": "--tls-key",
         "temporal_tls_ca": "--tls-ca", "temporal_tls_server_name": "--tls-server-name"}


def flag_of(setting: str) -> str:
    return FLAGS.get(setting, f"--{setting.replace('_', '-')}")


def load_settings(**overrides: Any) -> Settings:
    """Env vars, then flags (`overrides`, None meaning "not given"). Raises SettingsError with one line naming
    the flag when the refused value came from one, else the env var."""
    given = {key: value for key, value in overrides.items() if value is not None}
    try:
        return Settings(**given)
    except ValidationError as error:
        first = error.errors()[0]
        field = field_path(first) if first["loc"] else ""
        source = flag_of(field) if field in given else f"AZMC_{field.upper()}" if field else "settings"
        raise SettingsError(f"invalid {source}: {problem(first)}") from None
