"""Issue 40's proof on `azmc dev`: a create that meets one `AllocationFailed` (its first VM PUT) and one 429 (its
NIC PUT) is one trace, which `azmc trace` shows with both refused requests and Azure's request ids, and the
worker's Prometheus endpoint counts both; then a hung guest is repaired and a sweep runs, and every metric the
Grafana dashboard (deploy/grafana/) queries is one this running worker exports."""

import json
import re
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli.emulator_client import EmulatorControl
from tests.e2e.machines import example_spec
from tests.e2e.stack import ROOT, DevRun, azmc_dev, wait_until

DASHBOARD = ROOT / "deploy" / "grafana" / "azmc-dashboard.json"
SIZES = ["Standard_D2s_v5", "Standard_D4s_v5"]  # AllocationFailed refuses the first size: the second is tried
REPAIRED = {
    "timeouts": {"health": "5s", "health_check_interval": "30s"},
    "health": {"probe": {"tcp": {"port": 22}, "period": "5s", "failure_threshold": 1},
               "repair": [{"action": "restart", "wait": "3s"}, "redeploy", "recreate"]},
}


# Every attribute a span may carry: azure-core's (a URL's query redacted but its api-version), Temporal's and azmc's.
ALLOWED_ATTRIBUTES = {
    "http.request.method", "url.full", "server.address", "server.port", "user_agent.original",
    "http.response.status_code", "error.type", "az.client_request_id", "az.service_request_id",
    "az.correlation_request_id", "az.namespace", "http.request.resend_count",
    "temporal.activity.type", "temporal.activity.attempt", "temporal.activity.local", "temporal.workflow.id",
    "azmc.machine", "azmc.pool", "azmc.operation", "azmc.outcome", "azmc.repair_step", "azmc.attempt",
    "azmc.offering", "azmc.wait_s", "azmc.error_type", "azure.error.code", "azmc.arm.kind", "azmc.wait.reason",
    "azmc.wait.every_s", "azmc.wait.verdict", "azmc.waiters", "azmc.vms_listed", "azmc.changed", "azmc.replicas",
    "azmc.revision",
}


@dataclass
class Observed:
    trace_output: str
    spans: list[dict]
    metrics_after_create: str
    metrics_at_end: str
    worker_log: str
    trace_text: str
    codec_keys: list[str]


def _metrics(dev: DevRun) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{dev.ports['--metrics-port']}/metrics", timeout=10) as answer:
        return answer.read().decode()


def _spans(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Observed]:
    tmp_path = tmp_path_factory.mktemp("observability")
    spec = example_spec("machine.json", "vm_size", "zone")
    machine = tmp_path / "obs1.json"
    machine.write_text(json.dumps({**spec, "name": "obs1", "vm_sizes": SIZES, **REPAIRED}))
    with azmc_dev(tmp_path) as dev:
        emulator = EmulatorControl(f"http://127.0.0.1:{dev.ports['--emulator-port']}")
        emulator.add_fault(operation="networkInterfaces.put", name="obs1-nic", status=429, retry_after_s=1, times=1)
        emulator.add_fault(operation="virtualMachines.put", name="obs1", status=409, code="AllocationFailed", times=1)
        dev.azmc("apply", "-f", str(machine), "--wait")
        trace_file = dev.state_dir / "traces.jsonl"
        # The create's root span is written when it ends, in the worker's next batch of spans.
        wait_until(lambda: any(s["name"] == "machine.create" for s in _spans(trace_file)), 30, "the create's span")
        trace_output = dev.azmc("trace", "azmc-demo/obs1", "--last", "1")
        after_create = _metrics(dev)

        emulator.add_guest_fault("obs1", "hang")
        wait_until(lambda: "azmc_machine_repair_seconds_count" in _metrics(dev), 90, "the repair to be measured")
        dev.azmc("orphans", "--delete")  # one sweep now: the machines by phase
        keys = list(json.loads((dev.state_dir / "codec-keys.json").read_text()).values())
        yield Observed(trace_output, _spans(trace_file), after_create, _metrics(dev),
                       (tmp_path / "console.txt").read_text(errors="replace"),  # azmc dev: the worker logs there
                       trace_file.read_text(), keys)


def _sample(metrics: str, name: str, **labels: str) -> float:
    """The value of the one sample of `name` whose labels include `labels`; 0 when there is none."""
    found = 0.0
    for line in metrics.splitlines():
        match = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
        if not match or match.group(1) != name:
            continue
        have = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(2) or ""))
        if all(have.get(key) == value for key, value in labels.items()):
            found += float(match.group(3))
    return found


def _ancestor(spans: list[dict], span: dict, name: str) -> dict:
    by_id = {s["span_id"]: s for s in spans}
    while span["name"] != name:
        span = by_id[span["parent_id"]]
    return span


def test_one_trace_holds_the_refused_and_the_throttled_request_with_their_ids(observed: Observed) -> None:
    spans = observed.spans
    throttled = [s for s in spans if s["name"] == "networkInterfaces.put"
                 and s["attributes"].get("http.response.status_code") == 429]
    refused = [s for s in spans if s["name"] == "virtualMachines.put"
               and s["attributes"].get("http.response.status_code") == 409]
    assert len(throttled) == 1 and len(refused) == 1, [s["name"] for s in spans]
    creates = [s for s in spans
               if s["name"] == "machine.create" and s["attributes"]["azmc.machine"] == "azmc-demo/obs1"]
    assert len(creates) == 1
    trace_id = creates[0]["trace_id"]
    assert throttled[0]["trace_id"] == trace_id and refused[0]["trace_id"] == trace_id  # one trace, one operation
    sent_by = _ancestor(spans, refused[0], "activity ensure_vm")  # Azure's code is the activity's
    assert sent_by["attributes"]["azure.error.code"] == "AllocationFailed" and sent_by["status"] == "ERROR"
    for request in (throttled[0], refused[0]):
        request_id = request["attributes"].get("az.service_request_id", "")
        assert request_id, request
        assert request["attributes"].get("az.correlation_request_id")
        assert request_id in observed.trace_output  # as `azmc trace` shows it
    # The wait for the 429's Retry-After, the failed attempt and the one that worked are in the same trace.
    in_trace = [s for s in spans if s["trace_id"] == trace_id]
    assert any(s["name"] == "arm.wait retry_after" for s in in_trace)
    attempts = [s for s in in_trace if s["name"] == "attempt"]
    assert [a["status"] for a in sorted(attempts, key=lambda s: s["start_ns"])] == ["ERROR", "UNSET"]
    # The worker's log lines of the create carry its trace id.
    assert any("obs1" in line and f"trace_id={trace_id}" in line for line in observed.worker_log.splitlines())
    output = observed.trace_output
    assert output.startswith("create azmc-demo/obs1") and f"trace {trace_id}" in output
    assert re.search(r"networkInterfaces\.put\s+\S+ ms\s+429", output), output
    assert re.search(r"activity ensure_vm\s+\S+ m?s\s+AllocationFailed", output), output
    assert re.search(r"virtualMachines\.put\s+\S+ m?s\s+409", output), output


def test_no_secret_reaches_a_span(observed: Observed) -> None:
    """Spans carry names, codes and ids: never the bearer token or a codec key (the payloads stay encrypted)."""
    assert observed.codec_keys and not any(key in observed.trace_text for key in observed.codec_keys)
    assert "bearer" not in observed.trace_text.lower() and "authorization" not in observed.trace_text.lower()
    assert all(set(s["attributes"]) <= ALLOWED_ATTRIBUTES for s in observed.spans), \
        {key for s in observed.spans for key in s["attributes"]} - ALLOWED_ATTRIBUTES


def test_the_metrics_count_the_refusal_and_the_throttle(observed: Observed) -> None:
    metrics = observed.metrics_after_create
    assert _sample(metrics, "azmc_arm_requests_total", provider="Microsoft.Network",
                   operation="networkInterfaces.put", status_code="429") == 1
    assert _sample(metrics, "azmc_arm_requests_total", provider="Microsoft.Compute",
                   operation="virtualMachines.put", status_code="409") == 1
    assert _sample(metrics, "azmc_vm_creates_total", size=SIZES[0], outcome="failed", code="AllocationFailed") == 1
    assert _sample(metrics, "azmc_vm_creates_total", size=SIZES[1], outcome="succeeded") == 1
    assert _sample(metrics, "azmc_offerings_refused_total", code="AllocationFailed") == 1
    assert _sample(metrics, "azmc_arm_wait_seconds_count", kind="writes", reason="retry_after") >= 1
    assert _sample(metrics, "azmc_machine_create_seconds_count") == 1
    # Bounded labels: no machine name and no request id is a label value.
    assert "obs1" not in metrics


def _queried(dashboard: dict) -> set[str]:
    names = set()
    panels = list(dashboard["panels"])
    while panels:
        panel = panels.pop()
        panels += panel.get("panels", [])
        for target in panel.get("targets", []):
            names |= set(re.findall(r"\b((?:azmc|temporal)_[a-z0-9_]+)", target["expr"]))
    return names


def test_every_metric_the_dashboard_queries_is_exported_by_a_running_worker(observed: Observed) -> None:
    exported = {line.split("{")[0].split(" ")[0] for line in observed.metrics_at_end.splitlines()
                if line and not line.startswith("#")}
    queried = _queried(json.loads(DASHBOARD.read_text()))
    assert len(queried) >= 15
    assert queried - exported == set()
    assert _sample(observed.metrics_at_end, "azmc_machines", phase="Running") == 1  # from the sweep
