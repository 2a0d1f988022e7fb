"""When the worker traces (workers/tracing.py): only when the environment asks, and a request it cannot honour
stops it at start with one line naming the variable."""

import pytest

from workers import tracing
from workers.settings import SettingsError


def test_tracing_is_off_unless_an_endpoint_or_a_trace_file_is_set() -> None:
    assert not tracing.wanted({})
    assert tracing.plugins({}) == []
    assert tracing.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert tracing.wanted({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"})
    assert tracing.wanted({tracing.TRACE_FILE_ENV: "/tmp/spans.jsonl"})
    assert not tracing.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"})


def test_a_grpc_endpoint_is_refused_naming_the_variable() -> None:
    with pytest.raises(SettingsError, match=r"OTEL_EXPORTER_OTLP_PROTOCOL=grpc: .*http/protobuf"):
        tracing.plugins({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"})
