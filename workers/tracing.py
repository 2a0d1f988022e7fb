"""Traces of machine operations (docs/observability.md), set up once per process from the environment.

On when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: spans go over OTLP
(http/protobuf, every standard `OTEL_*` variable applies), and/or when `AZMC_TRACE_FILE` names a file (`azmc dev`
sets it): spans go there as JSON lines for `azmc trace`. Off otherwise, and off with `OTEL_SDK_DISABLED=true`:
no tracer provider, no plugin, azure-core's tracing left off, so an untraced worker pays nothing.

The Temporal SDK's OpenTelemetry plugin (`temporalio.contrib.opentelemetry.OpenTelemetryPlugin`, on the client)
carries each operation's context to its activities and drops every span of a replay; the workflows open one root
span per operation themselves (workflows/traces.py), so a run that lives for months is many short traces, and a
start from the `temporal` CLI or a Schedule (no trace header) is traced like any other.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workers.settings import SettingsError

log = logging.getLogger("azmc.tracing")

TRACE_FILE_ENV = "AZMC_TRACE_FILE"
ENDPOINT_ENVS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
SERVICE_NAME = "azmc-worker"
HTTP_PROTOBUF = "http/protobuf"  # the one OTLP protocol the `tracing` extra brings (no gRPC stack to install)
# The roots kept: the operations the workflows open (workflows/traces.py) and the shared status reads. A span with
# no parent and another name (a health check's ARM read, the sweep's) is not recorded: a trace is an operation.
ROOT_PREFIXES = ("machine.", "pool.", "vm_statuses.")

_provider: Any = None  # the process's one tracer provider (OpenTelemetry allows one global)


def wanted(env: Mapping[str, str] = os.environ) -> bool:
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    return any(env.get(name) for name in ENDPOINT_ENVS) or bool(env.get(TRACE_FILE_ENV))


def provider(processors: Sequence[Any] = ()) -> Any:
    """The process's replay-safe tracer provider, made and installed the first time (azure-core's tracing turned
    on with it); `processors` are added to it."""
    global _provider
    from opentelemetry import trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.sampling import ParentBased
    from temporalio.contrib.opentelemetry import create_tracer_provider

    from workers.trace_sampling import OperationRoots

    if _provider is None:
        from azure.core.settings import settings

        resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or SERVICE_NAME})
        _provider = create_tracer_provider(sampler=ParentBased(OperationRoots(ROOT_PREFIXES)), resource=resource)
        trace.set_tracer_provider(_provider)
        settings.tracing_enabled = True
    for processor in processors:
        _provider.add_span_processor(processor)
    return _provider


def plugins(env: Mapping[str, str] = os.environ) -> list[Any]:
    """What `Client.connect(plugins=...)` gets: the SDK's plugin with the exporters the environment asks for, or
    nothing when tracing is off. Raises SettingsError when asked for without the `tracing` extra."""
    if not wanted(env):
        return []
    try:
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from temporalio.contrib.opentelemetry import OpenTelemetryPlugin
    except ImportError:
        raise SettingsError("tracing is asked for (OTEL_EXPORTER_OTLP_ENDPOINT or AZMC_TRACE_FILE) but the "
                            "OpenTelemetry packages are missing: pip install 'azmc[tracing]'") from None
    processors = []
    protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or ""
    if protocol and protocol != HTTP_PROTOBUF:
        raise SettingsError(f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol}: the worker exports OTLP over {HTTP_PROTOBUF} "
                            "only; unset it (or set http/protobuf) and point OTEL_EXPORTER_OTLP_ENDPOINT at the "
                            "collector's HTTP port (4318 by default)")
    if any(env.get(name) for name in ENDPOINT_ENVS):
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        processors.append(BatchSpanProcessor(OTLPSpanExporter()))  # reads the OTEL_EXPORTER_OTLP_* variables
    if env.get(TRACE_FILE_ENV):
        from workers.trace_file import SpanFile

        processors.append(BatchSpanProcessor(SpanFile(Path(env[TRACE_FILE_ENV]))))
    provider(processors)
    log.info("tracing on", extra={"otlp": next((env[n] for n in ENDPOINT_ENVS if env.get(n)), "off"),
                                  "trace_file": env.get(TRACE_FILE_ENV, "off")})
    return [OpenTelemetryPlugin()]


def flush() -> None:
    """Before the process ends: the spans still batched are sent."""
    if _provider is not None:
        _provider.force_flush()
