"""deploy/grafana/ (docs/observability.md): docker-compose's Prometheus scrapes the workers as Kubernetes' PodMonitor
does (same path, interval and port), and Grafana beside it gets the Prometheus datasource and the azmc dashboard.
Which metrics the dashboard may name is tests/e2e/test_observability.py's: a running worker's export."""

import json
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
GRAFANA = ROOT / "deploy" / "grafana"
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def _yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text())


def _mounted(service: str) -> dict[str, str]:
    """A compose service's bind mounts: container path -> repository path."""
    mounts = {}
    for volume in COMPOSE["services"][service].get("volumes", []):
        source, target = volume.split(":")[:2]
        mounts[target] = source.removeprefix("./")
    return mounts


def test_compose_scrapes_the_workers_as_the_pod_monitor_does() -> None:
    (job,) = _yaml(GRAFANA / "prometheus.yml")["scrape_configs"]
    pod_monitor = _yaml(ROOT / "deploy" / "kubernetes" / "common" / "podmonitor.yaml")
    (endpoint,) = pod_monitor["spec"]["podMetricsEndpoints"]
    assert job["metrics_path"] == endpoint["path"] and job["scrape_interval"] == endpoint["interval"]
    workers_port = int(COMPOSE["x-worker-environment"]["AZMC_METRICS_PORT"])
    assert {sd["port"] for sd in job["dns_sd_configs"]} == {workers_port}
    deployment = _yaml(ROOT / "deploy" / "kubernetes" / "plain" / "deployment.yaml")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    named = {port["name"]: port["containerPort"] for port in container["ports"]}
    assert named[endpoint["port"]] == workers_port
    # Every worker service of the compose file is a name Prometheus looks up (worker-local shares the emulator's
    # network namespace, so it answers there).
    names = {name for sd in job["dns_sd_configs"] for name in sd["names"]}
    assert {"worker", "emulator"} <= names and COMPOSE["services"]["worker-local"]["network_mode"] == "service:emulator"
    assert _mounted("prometheus")["/etc/prometheus/prometheus.yml"] == "deploy/grafana/prometheus.yml"


def test_compose_grafana_gets_the_datasource_and_the_dashboard() -> None:
    mounts = _mounted("grafana")
    assert mounts["/etc/grafana/provisioning"] == "deploy/grafana/provisioning"
    (source,) = _yaml(GRAFANA / "provisioning" / "datasources" / "prometheus.yaml")["datasources"]
    assert source["type"] == "prometheus" and source["url"] == "http://prometheus:9090"
    (provider,) = _yaml(GRAFANA / "provisioning" / "dashboards" / "azmc.yaml")["providers"]
    dashboard = next(target for target, path in mounts.items() if path == "deploy/grafana/azmc-dashboard.json")
    assert Path(dashboard).parent == Path(provider["options"]["path"])
    panels = json.loads((GRAFANA / "azmc-dashboard.json").read_text())["panels"]
    assert all(target["datasource"]["uid"] == "${datasource}" for panel in panels
               for target in panel.get("targets", []))
