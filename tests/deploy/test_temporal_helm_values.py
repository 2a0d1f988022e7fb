"""deploy/helm/temporal-values.yaml: Temporal on its Helm chart (docs/production.md) is the server docker-compose.yml
runs, on PostgreSQL with SQL visibility, with azmc's dynamic config and the namespace the workers serve; every key
it sets is one the chart reads (its values.yaml, vendored: schemas/SOURCES.md)."""

import re
from collections.abc import Iterator
from typing import Any

import yaml

from tests.deploy.validation import ROOT, SCHEMAS, the

VALUES: dict[str, Any] = yaml.safe_load((ROOT / "deploy" / "helm" / "temporal-values.yaml").read_text())
CHART: dict[str, Any] = yaml.safe_load((SCHEMAS / "temporal-helm-chart-1.6.0" / "values.yaml").read_text())
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
# Subtrees the chart hands to the server as they are (its README: the raw server config, the dynamic config).
PASSED_THROUGH = ("server.config.persistence.datastores", "server.config.tls", "server.config.namespaces.namespace",
                  "server.dynamicConfig")


def keys(values: dict[str, Any], prefix: str = "") -> Iterator[str]:
    for key, value in values.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and not path.startswith(PASSED_THROUGH):
            yield from keys(value, f"{path}.")
        else:
            yield path


def chart_has(path: str) -> bool:
    if path.startswith(PASSED_THROUGH):
        return True
    node: Any = CHART
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def tag(service: str) -> str:
    return COMPOSE[service]["image"].rpartition(":")[2]


def test_every_key_is_one_the_chart_reads() -> None:
    assert [path for path in keys(VALUES) if not chart_has(path)] == []


def test_a_misspelt_key_is_caught() -> None:
    assert not chart_has("server.config.persistance.numHistoryShards")


def test_the_server_and_its_schema_tools_are_compose_s_release() -> None:
    assert VALUES["server"]["image"]["tag"] == VALUES["admintools"]["image"]["tag"] == tag("temporal")
    assert tag("setup-schema") == tag("temporal")
    assert VALUES["web"]["image"]["tag"] == tag("temporal-ui")
    assert VALUES["shims"] == {"dockerize": False, "elasticsearchTool": False}  # only 1.29 images need them


def test_postgresql_holds_history_and_visibility() -> None:
    persistence = VALUES["server"]["config"]["persistence"]
    stores = persistence["datastores"]
    assert {persistence["defaultStore"], persistence["visibilityStore"]} == set(stores)
    for name, store in stores.items():
        assert store["sql"]["pluginName"].startswith("postgres"), name
        assert "password" not in store["sql"] and store["sql"]["existingSecret"], name  # the password stays a Secret


def test_the_shard_count_is_the_one_production_md_chooses() -> None:
    shards = VALUES["server"]["config"]["persistence"]["numHistoryShards"]
    assert shards & (shards - 1) == 0  # a power of two
    chosen = re.search(r"`numHistoryShards: (\d+)`", (ROOT / "docs" / "production.md").read_text())
    assert chosen and int(chosen.group(1)) == shards


def test_the_dynamic_config_is_compose_s() -> None:
    compose_s = yaml.safe_load((ROOT / "deploy" / "temporal-dynamic-config.yaml").read_text())
    assert VALUES["server"]["dynamicConfig"] == compose_s


def test_the_namespace_the_workers_serve_is_created() -> None:
    created = {namespace["name"] for namespace in VALUES["server"]["config"]["namespaces"]["namespace"]}
    assert VALUES["server"]["config"]["namespaces"]["create"] is True
    assert the("WorkerDeployment", "controller")["spec"]["workerOptions"]["temporalNamespace"] in created
    # The chart's frontend Service of the release `temporal` in namespace `temporal`.
    assert the("Connection", "controller")["spec"]["hostPort"] == "temporal-frontend.temporal.svc.cluster.local:7233"


def test_workers_need_a_client_certificate() -> None:
    frontend = VALUES["server"]["config"]["tls"]["frontend"]["server"]
    assert frontend["requireClientAuth"] is True and frontend["clientCaFiles"]
    mounted = {mount["mountPath"] for mount in VALUES["server"]["additionalVolumeMounts"]}
    for path in (frontend["certFile"], frontend["keyFile"], *frontend["clientCaFiles"]):
        assert path.rsplit("/", 1)[0] in mounted, path
