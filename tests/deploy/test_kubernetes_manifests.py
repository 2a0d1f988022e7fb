"""deploy/kubernetes/ (docs/production.md): every manifest is what Kubernetes v1.33, the Temporal Worker Controller
v1.8.1 and prometheus-operator accept, checked offline against their vendored schemas (schemas/SOURCES.md); and the
pods they make run `azmc worker` as a version the controller routes to, unprivileged, with its secrets from
Secrets and its identity from workload identity."""

import copy
import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.validation import (
    MANIFESTS,
    ROOT,
    TLS_MOUNT,
    container_env,
    controller_pod,
    controller_rule_errors,
    documents,
    rendered_template,
    schema_errors,
    temporal_deployment_name,
    the,
    version_labels,
)
from workers.deployment import worker_version
from workers.settings import Settings, load_settings

K8S_NAMESPACE = "azmc"  # any: the controller names the Temporal deployment after it
BUILD_ID = "0.3.0-7b9c5d6f4f"  # what the controller derives: the image's tag and a hash of the pod template
ALL = documents()
CONFIG_MAPS = {doc["metadata"]["name"]: doc["data"] for _, doc in ALL if doc["kind"] == "ConfigMap"}


def wrt(name: str) -> dict[str, Any]:
    (found,) = [doc for _, doc in documents(MANIFESTS / "controller")
                if doc["kind"] == "WorkerResourceTemplate" and doc["metadata"]["name"] == name]
    return found


def pods() -> dict[str, dict[str, Any]]:
    """The pod template of each variant, as the pods will run: the controller's with what it adds."""
    connection = the("Connection", "controller")
    return {"controller": controller_pod(the("WorkerDeployment", "controller"), connection, K8S_NAMESPACE, BUILD_ID),
            "plain": the("Deployment", "plain")["spec"]["template"]}


def test_every_kind_the_production_docs_name_is_here() -> None:
    kinds = {(name.split("/")[2], doc["kind"]) for name, doc in ALL}
    assert {("controller", "WorkerDeployment"), ("controller", "Connection"), ("controller", "WorkerResourceTemplate"),
            ("plain", "Deployment"), ("common", "ServiceAccount"), ("common", "PodMonitor")} <= kinds


@pytest.mark.parametrize(("name", "document"), ALL, ids=[name for name, _ in ALL])
def test_every_manifest_is_valid(name: str, document: dict[str, Any]) -> None:
    assert schema_errors(document) == [], name
    assert controller_rule_errors(document) == [], name


@pytest.mark.parametrize(("folder", "kind", "path", "value"), [
    ("controller", "WorkerDeployment", ["spec", "rollout", "stratgy"], "Progressive"),
    ("controller", "WorkerDeployment", ["spec", "template", "spec", "containers", 0, "imagePulPolicy"], "Always"),
    ("controller", "Connection", ["spec", "mutualTLSSecretRef", "nmae"], "x"),
    ("plain", "Deployment", ["spec", "template", "spec", "containers", 0, "securityContext", "readOnlyRoot"], True),
    ("common", "PodMonitor", ["spec", "podMetricsEndpoints", 0, "prot"], "metrics"),
])  # fmt: skip
def test_a_misspelt_field_is_refused_as_kubectl_refuses_it(folder: str, kind: str, path: list[Any],
                                                           value: object) -> None:
    document = copy.deepcopy(the(kind, folder))
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    assert any(repr(path[-1]) in error for error in schema_errors(document)), schema_errors(document)


def test_the_controllers_rules_are_checked() -> None:
    deployment = copy.deepcopy(the("WorkerDeployment", "controller"))
    deployment["spec"]["rollout"]["steps"][0]["pauseDuration"] = "10s"
    deployment["spec"]["rollout"]["steps"].reverse()
    assert len(controller_rule_errors(deployment)) == 2
    hpa = copy.deepcopy(wrt("azmc-hpa"))
    hpa["spec"]["template"]["spec"]["scaleTargetRef"] = {"kind": "Deployment", "name": "azmc"}
    assert controller_rule_errors(hpa) == ["template spec.scaleTargetRef: the controller sets it; write {} for it to "
                                           "be injected"]


@pytest.mark.parametrize("name", ["azmc-pdb", "azmc-hpa"])
def test_each_versions_resources_are_valid_and_find_its_pods(name: str) -> None:
    """What the controller applies per running version, from the WorkerResourceTemplate, is a valid resource of its
    kind aimed at that version's Deployment and pods."""
    deployment = the("WorkerDeployment", "controller")
    resource = rendered_template(wrt(name), deployment, K8S_NAMESPACE, BUILD_ID)
    assert schema_errors(resource) == []
    pod_labels = pods()["controller"]["metadata"]["labels"]
    if resource["kind"] == "PodDisruptionBudget":
        assert resource["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
        assert resource["spec"]["minAvailable"] >= 1
    else:
        assert resource["spec"]["scaleTargetRef"]["name"].startswith(deployment["metadata"]["name"])
        assert resource["spec"]["minReplicas"] >= 2


def test_a_pod_the_controller_runs_polls_as_the_version_it_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The controller waits for pollers of <namespace>/<name>:<build id> and alone decides which version is current:
    the worker must read both from the variables it sets, whatever the pod template says."""
    pod = pods()["controller"]
    env = container_env(pod, CONFIG_MAPS)
    for name in [name for name in os.environ if name.startswith(("AZMC_", "TEMPORAL_"))]:
        monkeypatch.delenv(name)
    for name, value in env.items():
        if isinstance(value, str):
            monkeypatch.setenv(name, value)
    settings = load_settings()
    connection = the("Connection", "controller")["spec"]
    deployment = the("WorkerDeployment", "controller")
    version = worker_version(settings)
    assert (version.deployment_name, version.build_id) == (
        temporal_deployment_name(K8S_NAMESPACE, deployment), BUILD_ID)
    assert settings.make_current == "never"
    assert settings.temporal_address == connection["hostPort"]
    assert settings.temporal_namespace == deployment["spec"]["workerOptions"]["temporalNamespace"]
    assert settings.temporal_tls_server_name == connection["tls"]["serverName"]
    mounted = {mount["mountPath"] for mount in pod["spec"]["containers"][0]["volumeMounts"]}
    assert {settings.temporal_tls_cert.parent, settings.temporal_tls_key.parent, settings.temporal_tls_ca.parent} == {
        Path(TLS_MOUNT)} and TLS_MOUNT in mounted


def test_the_plain_deployment_reaches_the_same_temporal_with_the_same_certificate() -> None:
    pod = pods()["plain"]
    env = container_env(pod, CONFIG_MAPS)
    connection = the("Connection", "controller")["spec"]
    assert env["AZMC_TEMPORAL_ADDRESS"] == connection["hostPort"]
    assert env["AZMC_TEMPORAL_NAMESPACE"] == the("WorkerDeployment", "controller")["spec"]["workerOptions"][
        "temporalNamespace"]
    volumes = {volume["name"]: volume for volume in pod["spec"]["volumes"]}
    mounts = {mount["mountPath"]: mount["name"] for mount in pod["spec"]["containers"][0]["volumeMounts"]}
    assert volumes[mounts[TLS_MOUNT]]["secret"]["secretName"] == connection["mutualTLSSecretRef"]["name"]
    for setting in ("AZMC_TEMPORAL_TLS_CERT", "AZMC_TEMPORAL_TLS_KEY", "AZMC_TEMPORAL_TLS_CA"):
        assert str(Path(env[setting]).parent) == TLS_MOUNT, setting


def test_a_release_is_a_deployment_of_its_own() -> None:
    """Without the controller a pinned run's tasks go only to workers of its version: a new release must start
    beside the old one, never replace its pods. So the Deployment, its pods and its budget are named by release."""
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    slug = version.replace(".", "-")
    deployment = the("Deployment", "plain")
    assert deployment["metadata"]["name"].endswith(slug)
    assert deployment["spec"]["selector"]["matchLabels"]["app.kubernetes.io/version"] == version
    assert the("PodDisruptionBudget", "plain")["spec"]["selector"] == deployment["spec"]["selector"]
    assert the("HorizontalPodAutoscaler", "plain")["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    for variant, pod in pods().items():
        assert pod["spec"]["containers"][0]["image"].endswith(f":{version}"), variant


def test_both_variants_run_the_same_pod() -> None:
    """Apart from how each reaches Temporal and names its version, the two variants must not drift apart."""
    def comparable(pod: dict[str, Any]) -> dict[str, Any]:
        pod = copy.deepcopy(pod)
        container = pod["spec"]["containers"][0]
        container["env"] = [entry for entry in container["env"] if not entry["name"].startswith(("AZMC_TEMPORAL",
                            "TEMPORAL_", "AZMC_MAKE_CURRENT"))]  # fmt: skip
        container["volumeMounts"] = [mount for mount in container["volumeMounts"] if mount["mountPath"] != TLS_MOUNT]
        pod["spec"]["volumes"] = [volume for volume in pod["spec"]["volumes"] if "secret" not in volume]
        pod["metadata"]["labels"] = {key: value for key, value in pod["metadata"]["labels"].items()
                                     if not key.startswith(("temporal.io/", "app.kubernetes.io/version"))}
        return pod

    variants = {variant: comparable(pod) for variant, pod in pods().items()}
    assert variants["controller"] == variants["plain"]


@pytest.mark.parametrize("variant", ["controller", "plain"])
def test_the_worker_runs_unprivileged_on_a_read_only_root(variant: str) -> None:
    pod = pods()[variant]["spec"]
    (container,) = pod["containers"]
    dockerfile_user = int(re.search(r"^USER (\d+)$", (ROOT / "Dockerfile").read_text(), re.M).group(1))
    assert pod["securityContext"]["runAsNonRoot"] is True and pod["securityContext"]["runAsUser"] == dockerfile_user
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    assert container["securityContext"] == {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                                            "capabilities": {"drop": ["ALL"]}}
    assert not any(pod.get(key) for key in ("hostNetwork", "hostPID", "hostIPC"))
    assert pod["automountServiceAccountToken"] is False  # the worker never calls the Kubernetes API


@pytest.mark.parametrize("variant", ["controller", "plain"])
def test_every_setting_is_a_real_one_and_accepted(variant: str) -> None:
    """Settings ignore unknown variables, so a misspelt AZMC_ name would silently do nothing."""
    env = container_env(pods()[variant], CONFIG_MAPS)
    names = {f"AZMC_{field.upper()}" for field in Settings.model_fields}
    assert {name for name in env if name.startswith("AZMC_")} <= names
    literal = {name.removeprefix("AZMC_").lower(): value for name, value in env.items()
               if name.startswith("AZMC_") and isinstance(value, str)}
    Settings.model_validate(literal)  # every literal value passes the worker's own validation


@pytest.mark.parametrize("variant", ["controller", "plain"])
def test_secrets_come_from_secrets_and_azure_from_workload_identity(variant: str) -> None:
    pod = pods()[variant]
    env = container_env(pod, CONFIG_MAPS)
    assert env["AZMC_CODEC_KEYS"] == {"secretKeyRef": {"name": "azmc-codec-keys", "key": "keys"}}
    secretive = [name for name in env if re.search(r"KEY(S)?$|SECRET|TOKEN|PASSWORD", name)
                 and not name.endswith(("_PATH", "_TLS_KEY", "_URL", "_SECRET_NAME"))]  # fmt: skip
    assert all(not isinstance(env[name], str) for name in secretive), secretive
    assert "AZURE_CLIENT_SECRET" not in env
    account = the("ServiceAccount", "common")
    assert pod["spec"]["serviceAccountName"] == account["metadata"]["name"]
    assert pod["metadata"]["labels"]["azure.workload.identity/use"] == "true"
    assert re.fullmatch(r"[0-9a-f-]{36}", account["metadata"]["annotations"]["azure.workload.identity/client-id"])


def test_the_metrics_port_is_served_probed_and_scraped() -> None:
    monitor = the("PodMonitor", "common")
    for variant, pod in pods().items():
        env = container_env(pod, CONFIG_MAPS)
        (container,) = pod["spec"]["containers"]
        ports = {port["name"]: port["containerPort"] for port in container["ports"]}
        assert ports["metrics"] == int(env["AZMC_METRICS_PORT"]) and env["AZMC_METRICS_HOST"] == "0.0.0.0", variant
        assert container["readinessProbe"]["httpGet"] == {"path": "/metrics", "port": "metrics"}
        assert monitor["spec"]["selector"]["matchLabels"].items() <= pod["metadata"]["labels"].items(), variant
    assert {endpoint["port"] for endpoint in monitor["spec"]["podMetricsEndpoints"]} == {"metrics"}
    policy = the("NetworkPolicy", "common")["spec"]
    assert [port["port"] for rule in policy["ingress"] for port in rule["ports"]] == ["metrics"]


def test_the_autoscaler_reads_the_metric_the_rule_records_with_the_labels_the_controller_selects() -> None:
    (rule,) = [rule for group in the("PrometheusRule", "common")["spec"]["groups"] for rule in group["rules"]]
    hpa = rendered_template(wrt("azmc-hpa"), the("WorkerDeployment", "controller"), K8S_NAMESPACE, BUILD_ID)
    (metric,) = [m["external"]["metric"] for m in hpa["spec"]["metrics"] if m["type"] == "External"]
    assert metric["name"] == rule["record"]
    grouped_by = set(re.findall(r"sum by \(([^)]*)\)", rule["expr"])[0].replace(" ", "").split(","))
    assert set(metric["selector"]["matchLabels"]) <= grouped_by
    # Each label the rule groups by, but the SDK's own worker_type, comes from the PodMonitor's relabelling.
    endpoint = the("PodMonitor", "common")["spec"]["podMetricsEndpoints"][0]
    relabelled = {relabel["targetLabel"] for key in ("relabelings", "metricRelabelings") for relabel in endpoint[key]}
    assert grouped_by - {"worker_type"} <= relabelled
    # The pod labels the relabelling reads are the ones the controller gives a version's pods.
    labels = version_labels(the("WorkerDeployment", "controller"), BUILD_ID)
    read = {label for relabel in endpoint["relabelings"] for label in relabel["sourceLabels"]}
    assert {f"__meta_kubernetes_pod_label_{key.replace('.', '_').replace('/', '_').replace('-', '_')}"
            for key in labels} <= read


def test_memory_covers_what_the_benches_measured() -> None:
    """The worker's memory request holds the largest resident set a bench measured for a worker (bench/results)."""
    measured = [row["value"] for path in (ROOT / "bench" / "results").glob("scale*.json")
                for row in json.loads(path.read_text())["rows"] if row["unit"] == "MiB" and "RSS" in row["metric"]]
    assert measured
    for variant, pod in pods().items():
        resources = pod["spec"]["containers"][0]["resources"]
        request, limit = (int(resources[kind]["memory"].removesuffix("Mi").removesuffix("Gi")) *
                          (1024 if resources[kind]["memory"].endswith("Gi") else 1) for kind in ("requests", "limits"))
        assert max(measured) <= request <= limit, variant
        assert "cpu" in resources["requests"] and "cpu" not in resources["limits"], variant  # no CFS throttling


def test_the_manifests_are_yaml_kubectl_reads() -> None:
    for path in MANIFESTS.rglob("*"):
        assert path.is_dir() or path.suffix == ".yaml", path
        if path.suffix == ".yaml":
            assert all(isinstance(doc, dict) for doc in yaml.safe_load_all(path.read_text())), path
