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


def setting(default: Any, meaning: str, *, see: str = "", shown: str = "", **rules: Any) -> Any:
    """A setting's field: its default and what it means, which docs/configuration.md's table and the flags' help
    read (workers/settings_table.py); `see`: the docs page that says more; `shown`: the default as the table says it,
    when the code's (None) is not what a user gets."""
    extra: dict[str, Any] = {key: value for key, value in (("see", see), ("shown", shown)) if value}
    return Field(default, description=meaning, json_schema_extra=extra or None, **rules)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="AZMC_", extra="ignore", frozen=True)

    # Temporal
    temporal_address: str = setting(
        "localhost:7233", "Temporal frontend (`<ns>.<account>.tmprl.cloud:7233` for Temporal Cloud)")
    temporal_namespace: str = setting("default", "namespace")
    temporal_tls: bool = setting(False, "TLS with system roots (implied by any TLS setting below or an API key)")
    temporal_tls_cert: Path | None = setting(None, "mTLS client certificate file (PEM), with the key")
    temporal_tls_key: Path | None = setting(None, "mTLS client key file (PEM), with the certificate")
    temporal_tls_ca: Path | None = setting(
        None, "the server's CA certificate (PEM), for a cluster whose certificate is not in the system roots")
    temporal_tls_server_name: str | None = setting(
        None, "the name in the server's certificate, when it differs from the address's host")
    temporal_api_key: SecretStr | None = setting(None, "Temporal Cloud API key; environment only, never logged")
    task_queue: str = setting(TASK_QUEUE, "task queue of the machines, pools and sweep; the shared memory of refused "
                                          "offerings runs on `<queue>-offerings`, which every worker polls too")
    # Worker Versioning (workers/deployment.py). The controller names the deployment
    # <Kubernetes namespace>/<WorkerDeployment>.
    deployment_name: str = setting(
        "azmc", "the Worker Deployment this worker is a version of; its build id is the package version and a digest "
                "of `workflows/` and `models/`", see="upgrades.md",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}(/[A-Za-z0-9][A-Za-z0-9_-]{0,99})?$")
    build_id: str | None = setting(
        None, "a build id to serve instead of this code's own: for a deployment system that names versions itself",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$")
    worker_versioning: bool = setting(
        True, "`false` runs unversioned, for a Temporal server before 1.29.1 (one without Worker Versioning stops a "
              "versioned worker at start, saying so): a deploy that changes workflow code then needs every run to "
              "end first", see="upgrades.md")
    make_current: str = setting(
        "first", "when a starting worker makes its version the current one: `first` only if none is (a new "
                 "installation works at once, a deploy waits for `azmc deployment promote`), `always` (`azmc dev` "
                 "sets it), `never`", pattern="^(first|always|never)$")
    take_over: bool = setting(
        False, "a worker refuses to make its version current where another Worker Deployment's current version "
               "serves the task queues (every run there would move to it); `true` moves them to its deployment on "
               "purpose", see="upgrades.md")

    # Worker process
    metrics_port: int = setting(
        METRICS_PORT, "Prometheus endpoint (`/metrics`) of the SDK's metrics, azmc's Azure-side metrics and "
                      "`azmc_codec_key_missing` (payloads whose codec key the worker lacks, by key id); 0 turns it "
                      "off", see="security.md", ge=0, le=65535)
    metrics_host: str = setting("127.0.0.1", "the address the Prometheus endpoint listens on")
    graceful_shutdown_s: float = setting(30.0, "on SIGTERM/SIGINT, how long in-flight activities may finish (seconds)")
    max_concurrent_activities: int = setting(200, "activities a worker runs at once", ge=1)
    # Azure writes a second across the whole installation, per budget (models/pace.py: 80% of Azure's documented
    # limits by default). Every worker of an installation must say the same: the server keeps the last one heard.
    pace_network_per_s: float = setting(
        DEFAULT_PACES[Budget.NETWORK], "NIC creations and deletions a second across the installation: 80% of the "
        "network provider's 1,000 writes and deletes per 5 minutes; every worker must say the same",
        see="architecture/pacing.md", gt=0, le=1000)
    pace_compute_writes_per_s: float = setting(
        DEFAULT_PACES[Budget.COMPUTE_WRITES], "VM creations (PutVM) a second across the installation: 80% of "
        "compute's 500 a minute", gt=0, le=1000)
    pace_compute_updates_per_s: float = setting(
        DEFAULT_PACES[Budget.COMPUTE_UPDATES], "power operations, redeploys and PATCHes (UpdateVM) a second across the "
        "installation: 80% of compute's 500 a minute", gt=0, le=1000)
    pace_compute_deletes_per_s: float = setting(
        DEFAULT_PACES[Budget.COMPUTE_DELETES], "VM and disk deletions and deallocations (DeleteVM) a second across the "
        "installation: 80% of compute's 500 a minute", gt=0, le=1000)
    # Force-delete a VM whose every disk goes with it (activities/force_delete.py).
    force_delete_vms: bool = setting(
        True, "delete a VM with `forceDeletion=true` when every disk goes with it (Azure skips the guest's shutdown: a "
              "shorter delete, fewer polls); a VM that keeps a data disk is never force-deleted",
        see='architecture/activities.md, "What each activity asks of ARM"')
    # ARM requests a second across the installation, by kind; each worker sends its share (activities/arm_pace.py).
    pace_arm_reads_per_s: float = setting(
        DEFAULT_ARM_PACES["reads"], "ARM reads a second across the installation, polls included: 80% of ARM's 25; "
        "each worker sends its share, the rate divided by the workers it counts on the task queue",
        see="architecture/pacing.md", gt=0, le=10000)
    pace_arm_writes_per_s: float = setting(
        DEFAULT_ARM_PACES["writes"], "ARM writes a second across the installation: 80% of ARM's 10, shared as the "
        "reads are", gt=0, le=10000)
    pace_arm_deletes_per_s: float = setting(
        DEFAULT_ARM_PACES["deletes"], "ARM deletes a second across the installation: 80% of ARM's 10, shared as the "
        "reads are", gt=0, le=10000)
    # Chosen with bench/scale.py: see docs/performance.md.
    max_cached_workflows: int = setting(
        MAX_CACHED_WORKFLOWS, "machines a worker keeps in memory between their workflow tasks (sticky cache); an "
        "evicted one replays its history at its next task or query", see="performance.md", ge=0)
    max_concurrent_workflow_tasks: int = setting(
        MAX_CONCURRENT_WORKFLOW_TASKS, "workflow tasks a worker holds at once", see="performance.md", ge=1)
    workflow_task_polls: int = setting(
        WORKFLOW_TASK_POLLS, "polls for workflow tasks a worker keeps open: one takes new machines from the task "
        "queue, the others its own machines' next tasks, so a burst of new machines cannot starve running ones",
        see="performance.md", ge=2)
    log_format: str = setting("text", "`text` (logfmt) or `json`, one event per line", pattern="^(text|json)$")
    log_level: str = setting(
        "info", "`info`: phase changes and every step's outcome (failures as warnings); `debug` adds each step as it "
                "starts (the status and the UI show those anyway)", pattern="^(debug|info|warning|error)$")
    # Off, because the tests check determinism on the source and by replays, and it costs a third of the worker's
    # CPU; on, it re-checks it in production (workers/sandbox.py).
    workflow_sandbox: bool = setting(
        False, "run workflows in Temporal's sandbox, which re-checks determinism at run time for about a third of the "
               "worker's CPU; `tests/workers/test_workflow_runner.py` runs a lifecycle in it")

    # Azure: an endpoint means "talk to this ARM-compatible URL" (a loopback one is the emulator); none
    # means the cloud's ARM. The cloud (default: the endpoint's, else public Azure) sets authority and audience.
    azure_endpoint: str | None = setting(
        None, "an ARM endpoint; a loopback one (`http://127.0.0.1:8910`) is the emulator; unset = the cloud's ARM. "
              "Plain http only on loopback")
    azure_cloud: AzureCloud | None = setting(
        None, "the ARM endpoint, the sign-in authority and the tokens' ARM audience", shown="the endpoint's, else "
              "`AzureCloud`")
    azure_token: SecretStr | None = setting(
        None, "bearer token for the emulator; used, and allowed, only with a loopback endpoint",
        shown=f"`{DEFAULT_EMULATOR_TOKEN}`")
    azure_subscription_id: str | None = setting(None, "the subscription to manage (required for real Azure)")
    # Unset: the Temporal namespace's id, which differs between clusters and namespaces (workers/installation.py).
    installation_id: str | None = setting(
        None, "names this installation in every resource's `azmc-owner` tag (letters, digits, `.`, `_`, `-`; at most "
              "64)", shown="the Temporal namespace's id", pattern=INSTALLATION_ID_PATTERN)

    # Payload encryption (codec/): keys from the variable, a file and/or Azure Key Vault; none = not encrypted.
    codec_keys: SecretStr | None = setting(
        None, "payload encryption keys: JSON of key id -> base64 of 32 bytes; the last one encrypts; environment only",
        see="security.md")
    codec_keys_file: Path | None = setting(None, "the same JSON in a file (merged after `AZMC_CODEC_KEYS`)")
    codec_key_vault_url: str | None = setting(
        None, "Azure Key Vault holding the same JSON as a secret, read with DefaultAzureCredential (merged last; the "
              "image holds it when built with `LOCK=image-keyvault`)", see='testing.md, "Dependencies"')
    codec_key_vault_secret: str = setting("azmc-codec-keys", "the name of that secret")

    # The fleet sweep (models/sweep.py): the Schedule `azmc-fleet-sweep` runs FleetSweep every interval.
    ensure_schedule: bool = setting(
        False, "the worker creates or updates the schedule `azmc-fleet-sweep` at start (`azmc dev` sets it)")
    sweep_interval: Annotated[timedelta, Bounded("sweep_interval", always=True)] = setting(
        DEFAULT_SWEEP_INTERVAL, "how often the fleet sweep runs")
    orphan_grace: Annotated[timedelta, Bounded("orphan_grace", always=True)] = setting(
        DEFAULT_ORPHAN_GRACE, "how long a resource must have been orphaned before the sweep deletes it; keep it above "
        "Resource Graph's lag")
    max_orphan_deletions: int = setting(
        DEFAULT_MAX_ORPHAN_DELETIONS, "the safety cap: a sweep that would delete more deletes nothing and says why",
        ge=0)
    max_upgrade_signals: int = setting(
        DEFAULT_MAX_UPGRADE_SIGNALS, "after a deploy, how many runs still on an older version one sweep wakes with "
        "`upgrade`", see="upgrades.md", ge=0)

    # Capacity fallback (workflows/offerings/workflow.py).
    shared_offerings: bool = setting(
        True, "machines share one memory of the offerings Azure refused; `false` gives each machine its own, learning "
              "only from its own refusals (the baseline `bench/capacity_fallback.py` measures against, not for "
              "production)")
    # Foreseen quota (models/quota.py).
    quota_read_every: Annotated[timedelta, Bounded("quota_read_every", always=True)] = setting(
        DEFAULT_READ_EVERY, "how old the offerings memory's reading of the compute usages (vCPU quota) may be before "
        "the next claim has it read again: one ARM read per subscription and location, for the whole fleet",
        see='capacity.md, "Foreseen quota"')

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
         "temporal_tls_ca": "--tls-ca", "temporal_tls_server_name": "--tls-server-name",
         "deployment_name": "--deployment"}


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
