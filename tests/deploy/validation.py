"""deploy/'s Kubernetes documents checked offline against the vendored schemas (schemas/SOURCES.md), and what the
Temporal Worker Controller does with them (its v1.8.1 source: internal/k8s/deployments.go, docs/
worker-resource-templates.md), so a test can look at the pods and resources it would create."""

import copy
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft7Validator, Draft202012Validator

ROOT = Path(__file__).parents[2]
MANIFESTS = ROOT / "deploy" / "kubernetes"
SCHEMAS = Path(__file__).parent / "schemas"
KUBERNETES = SCHEMAS / "kubernetes-v1.33.0" / "_definitions.json"
CONTROLLER_CRDS = SCHEMAS / "temporal-worker-controller-v1.8.1"
PROMETHEUS_OPERATOR = {("monitoring.coreos.com/v1", "PodMonitor"): "podmonitor_v1.json",
                       ("monitoring.coreos.com/v1", "PrometheusRule"): "prometheusrule_v1.json"}

Document = dict[str, Any]


def documents(folder: Path = MANIFESTS) -> list[tuple[str, Document]]:
    """Every YAML document under `folder`, named `<file>#<index>`."""
    found = []
    for path in sorted(folder.rglob("*.yaml")):
        for index, document in enumerate(yaml.safe_load_all(path.read_text())):
            if document is not None:
                found.append((f"{path.relative_to(ROOT)}#{index}", document))
    return found


def the(kind: str, folder: str) -> Document:
    """The one document of `kind` under deploy/kubernetes/<folder>."""
    (found,) = [doc for _, doc in documents(MANIFESTS / folder) if doc["kind"] == kind]
    return found


@cache
def _kubernetes() -> dict[str, Any]:
    return json.loads(KUBERNETES.read_text())


def kubernetes_schema(api_version: str, kind: str) -> dict[str, Any] | None:
    """The strict JSON Schema of a built-in kind, or None when Kubernetes v1.33 has no such kind."""
    group, _, version = api_version.rpartition("/")
    definitions = _kubernetes()["$defs"]
    for name, definition in definitions.items():
        if {"group": group, "version": version, "kind": kind} in definition.get("x-kubernetes-group-version-kind", []):
            return {"$schema": _kubernetes()["$schema"], "$defs": definitions, "$ref": f"#/$defs/{name}"}
    return None


def strict(schema: Any) -> Any:
    """A structural schema that refuses unknown fields, as `kubectl apply`'s strict field validation does (the API
    server would drop them silently), except where the schema keeps unknown fields on purpose."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    tightened = {key: ({name: strict(sub) for name, sub in value.items()} if key == "properties" else strict(value))
                 for key, value in schema.items()}  # fmt: skip
    if ("properties" in schema and "additionalProperties" not in schema
            and not schema.get("x-kubernetes-preserve-unknown-fields")):
        tightened["additionalProperties"] = False
    return tightened


@cache
def custom_schemas() -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) -> schema, for the controller's CRDs (made strict) and prometheus-operator's."""
    schemas = {}
    for path in sorted(CONTROLLER_CRDS.glob("*.yaml")):
        crd = yaml.safe_load(path.read_text())
        for version in crd["spec"]["versions"]:
            key = (f"{crd['spec']['group']}/{version['name']}", crd["spec"]["names"]["kind"])
            schemas[key] = strict(version["schema"]["openAPIV3Schema"])
    for key, name in PROMETHEUS_OPERATOR.items():
        schemas[key] = json.loads((SCHEMAS / "prometheus-operator-v0.89.0" / name).read_text())
    return schemas


def _messages(validator: Any, document: Document) -> list[str]:
    return [f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message}"
            for error in sorted(validator.iter_errors(document), key=lambda error: list(map(str, error.path)))]


def schema_errors(document: Document) -> list[str]:
    """What the schema of the document's kind refuses in it; a kind no vendored schema knows is an error too."""
    key = (document.get("apiVersion", ""), document.get("kind", ""))
    builtin = kubernetes_schema(*key)
    if builtin is not None:
        return _messages(Draft202012Validator(builtin), document)
    if key not in custom_schemas():
        return [f"no vendored schema for apiVersion {key[0]!r} kind {key[1]!r}"]
    metadata = {"$schema": _kubernetes()["$schema"], "$defs": _kubernetes()["$defs"],
                "$ref": "#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    return (_messages(Draft7Validator(custom_schemas()[key]), document)
            + [f"metadata: {message}" for message in _messages(Draft202012Validator(metadata),
                                                                 document.get("metadata", {}))])


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|m|s|ms)")
_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}


def go_duration_s(text: str) -> float:
    """Seconds of a Go duration ("1h30m", "45s"), the format of the controller's pauseDuration and sunset fields."""
    parts = _DURATION.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        raise ValueError(f"not a Go duration: {text!r}")
    return sum(float(number) * _SECONDS[unit] for number, unit in parts)


def controller_rule_errors(document: Document) -> list[str]:
    """The CRDs' CEL rules (x-kubernetes-validations) and the controller's own checks that JSON Schema cannot say."""
    spec, kind, errors = document.get("spec", {}), document.get("kind"), []
    if kind == "WorkerDeployment":
        rollout = spec.get("rollout", {})
        steps = rollout.get("steps", [])
        if rollout.get("strategy") == "Progressive" and not steps:
            errors.append("rollout: steps are required for Progressive rollout")
        ramps = [step["rampPercentage"] for step in steps]
        if ramps != sorted(set(ramps)):
            errors.append(f"rollout.steps: ramp percentages must increase: {ramps}")
        errors += [f"rollout.steps: pause duration must be at least 30s: {step['pauseDuration']}"
                   for step in steps if go_duration_s(step["pauseDuration"]) < 30]
        for field in ("scaledownDelay", "deleteDelay"):
            if field in spec.get("sunset", {}):
                go_duration_s(spec["sunset"][field])
    elif kind == "Connection" and {"mutualTLSSecretRef", "apiKeySecretRef"} <= set(spec):
        errors.append("Only one of mutualTLSSecretRef or apiKeySecretRef may be set")
    elif kind == "WorkerResourceTemplate":
        refs = {"workerDeploymentRef", "temporalWorkerDeploymentRef"} & set(spec)
        if len(refs) != 1:
            errors.append("exactly one of workerDeploymentRef or temporalWorkerDeploymentRef must be set")
        for path, value in _controller_owned(spec.get("template", {})):
            if value != {}:
                errors.append(f"template {path}: the controller sets it; write {{}} for it to be injected")
    return errors


def _controller_owned(template: Document) -> Iterator[tuple[str, Any]]:
    """The fields of a WorkerResourceTemplate's template the controller injects, wherever they are set."""
    spec = template.get("spec", {})
    yield from ((path, value) for path, value in _walk(spec, "spec") if path.endswith(".scaleTargetRef"))
    if "matchLabels" in spec.get("selector", {}):
        yield "spec.selector.matchLabels", spec["selector"]["matchLabels"]


def _walk(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, sub in value.items():
            yield f"{path}.{key}", sub
            yield from _walk(sub, f"{path}.{key}")
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            yield from _walk(sub, f"{path}[{index}]")


# What the controller names things (internal/k8s/deployments.go).
def temporal_deployment_name(k8s_namespace: str, worker_deployment: Document) -> str:
    return f"{k8s_namespace}/{worker_deployment['metadata']['name']}"


def versioned_deployment_name(worker_deployment: Document, build_id: str) -> str:
    return f"{worker_deployment['metadata']['name']}-{build_id}"[:47]


def version_labels(worker_deployment: Document, build_id: str) -> dict[str, str]:
    return {"temporal.io/build-id": build_id, "temporal.io/deployment-name": worker_deployment["metadata"]["name"]}


def rendered_template(template_resource: Document, worker_deployment: Document, k8s_namespace: str,
                      build_id: str) -> Document:
    """The resource the controller applies for one version from a WorkerResourceTemplate: `{}` filled in."""
    resource = copy.deepcopy(template_resource["spec"]["template"])
    resource.setdefault("metadata", {})["name"] = f"{template_resource['metadata']['name']}-{build_id}"[:47]
    target = {"apiVersion": "apps/v1", "kind": "Deployment",
              "name": versioned_deployment_name(worker_deployment, build_id)}

    def fill(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: target if key == "scaleTargetRef" and sub == {} else fill(sub) for key, sub in value.items()}
        return [fill(item) for item in value] if isinstance(value, list) else value

    resource["spec"] = fill(resource["spec"])
    if resource["spec"].get("selector", {}).get("matchLabels") == {}:
        resource["spec"]["selector"]["matchLabels"] = version_labels(worker_deployment, build_id)
    for metric in resource["spec"].get("metrics", []):
        selector = metric.get("external", {}).get("metric", {}).get("selector", {})
        if "matchLabels" in selector:
            selector["matchLabels"] |= {
                "temporal_worker_deployment_name": temporal_deployment_name(k8s_namespace, worker_deployment)
                .replace("/", "_"),
                "temporal_worker_build_id": build_id,
                "temporal_namespace": worker_deployment["spec"]["workerOptions"]["temporalNamespace"]}
    return resource


TLS_MOUNT = "/etc/temporal/tls"


def controller_pod(worker_deployment: Document, connection: Document, k8s_namespace: str, build_id: str) -> Document:
    """The pod template of a version's Deployment: the user's template, the version's labels, and the variables and
    volume ApplyControllerPodSpecModifications adds to every container."""
    template = copy.deepcopy(worker_deployment["spec"]["template"])
    template["metadata"].setdefault("labels", {}).update(version_labels(worker_deployment, build_id))
    conn = connection["spec"]
    added = [{"name": "TEMPORAL_ADDRESS", "value": conn["hostPort"]},
             {"name": "TEMPORAL_NAMESPACE", "value": worker_deployment["spec"]["workerOptions"]["temporalNamespace"]},
             {"name": "TEMPORAL_DEPLOYMENT_NAME", "value": temporal_deployment_name(k8s_namespace, worker_deployment)},
             {"name": "TEMPORAL_WORKER_BUILD_ID", "value": build_id}]
    if conn.get("tls", {}).get("serverName"):
        added.append({"name": "TEMPORAL_TLS_SERVER_NAME", "value": conn["tls"]["serverName"]})
    if "mutualTLSSecretRef" in conn:
        added += [{"name": "TEMPORAL_TLS", "value": "true"},
                  {"name": "TEMPORAL_TLS_CLIENT_KEY_PATH", "value": f"{TLS_MOUNT}/tls.key"},
                  {"name": "TEMPORAL_TLS_CLIENT_CERT_PATH", "value": f"{TLS_MOUNT}/tls.crt"}]
        template["spec"].setdefault("volumes", []).append(
            {"name": "temporal-tls", "secret": {"secretName": conn["mutualTLSSecretRef"]["name"]}})
    for container in template["spec"]["containers"]:
        container["env"] = [*container.get("env", []), *added]
        if "mutualTLSSecretRef" in conn:
            container.setdefault("volumeMounts", []).append({"name": "temporal-tls", "mountPath": TLS_MOUNT})
    return template


def container_env(pod: Document, config_maps: dict[str, dict[str, str]]) -> dict[str, Any]:
    """The first container's environment: its ConfigMaps' keys, then its own entries (a literal, or the
    `valueFrom` reference as it stands)."""
    (container, *_) = pod["spec"]["containers"]
    env: dict[str, Any] = {}
    for source in container.get("envFrom", []):
        env |= config_maps[source["configMapRef"]["name"]]
    for entry in container.get("env", []):
        env[entry["name"]] = entry.get("value", entry.get("valueFrom"))
    return env
