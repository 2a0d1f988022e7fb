"""No 5xx for a client mistake: malformed bodies against every write route, hostile graph queries, bad settings."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from typing import Any

import pytest
from azure.core.exceptions import HttpResponseError
from azure.mgmt.resourcegraph.models import QueryRequest

from emulator.app import build_router
from tests.emulator.builders import RG, nic_body, vm_body
from tests.emulator.steps import make_nic
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import sdk_clients

# Wrong in every way a client can be: wrong JSON types, hostile values, malformed JSON.
MALFORMED: list[bytes] = [
    b"[]", b'"text"', b"7", b"null", b"{", b"\xff\xfe", b"NaN", b'{"a": Infinity}',
    b'{"properties": "x"}', b'{"properties": []}', b'{"location": 5, "tags": "x"}', b'{"tags": {"k": []}}',
    b'{"location": "westeurope", "properties": {"storageProfile": {"dataDisks": [1, null, {"lun": -1}]}}}',
    b'{"location": "westeurope", "properties": {"networkProfile": {"networkInterfaces": [{"id": 7}]}}}',
    b'{"location": "westeurope", "properties": {"ipConfigurations": [{"properties": {"subnet": "s"}}]}}',
    b'{"location": "westeurope", "properties": {"subnets": [{"properties": {}}]}}',
    b'{"location": "westeurope", "properties": {"addressSpace": {"addressPrefixes": ["nope"]}}}',
    b'{"query": 5, "subscriptions": [1], "options": {"$top": "x"}}',
    b'{"operation": [], "status": "x"}', b'{"time_scale": "fast", "page_size": 0.5}',
    b'{"id": 5}', b'{"a": ' * 70 + b"1" + b"}" * 70, b"[" * 20000 + b"]" * 20000,
]
_VALUES = {"sub": "00000000-0000-0000-0000-000000000000", "rg": RG, "name": "fuzz1", "vnet": "azmc-vnet",
           "location": "westeurope", "namespace": "Microsoft.Compute", "id": "00000000-0000-0000-0000-000000000009",
           "offer_type": "virtualmachine", "publisher": "fuzz-publisher", "offer": "fuzz-offer", "plan": "fuzz-plan",
           "extension": "fuzz-extension", "group": "fuzz-group"}
CONTROL_WRITES = ["/_emulator/faults", "/_emulator/settings", "/_emulator/evict", "/_emulator/catalog"]


def write_paths() -> list[tuple[str, str]]:
    """(method, concrete path) of every ARM write route and control-API write."""
    paths = [(r.method, re.sub(r"\{(\w+)\}", lambda m: _VALUES[m.group(1)], r.template))
             for r in build_router().routes if r.method in ("PUT", "PATCH", "POST")]
    return paths + [("POST", path) for path in CONTROL_WRITES]


def send(emulator: EmulatorHandle, method: str, path: str, data: bytes) -> tuple[int, Any]:
    request = urllib.request.Request(f"{emulator.url}{path}?api-version=2024-07-01", data=data, method=method,
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer t"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def mutations(body: Any, path: str = "") -> list[tuple[str, Any]]:
    """`body` with one node at a time replaced by a value of another JSON type."""
    found: list[tuple[str, Any]] = []
    children = body.items() if isinstance(body, dict) else enumerate(body) if isinstance(body, list) else []
    for key, child in children:
        for wrong in ("x", 3, -1, True, [], {}, [None], 10**30):
            if type(wrong) is not type(child):
                copy = json.loads(json.dumps(body))
                copy[key] = wrong
                found.append((f"{path}/{key}={wrong!r}", copy))
        found += [(where, _replaced(body, key, inner)) for where, inner in mutations(child, f"{path}/{key}")]
    return found


def _replaced(body: Any, key: Any, inner: Any) -> Any:
    copy = json.loads(json.dumps(body))
    copy[key] = inner
    return copy


@pytest.mark.parametrize(("method", "path"), write_paths())
def test_malformed_bodies_never_get_a_server_error(emulator: EmulatorHandle, method: str, path: str) -> None:
    for data in MALFORMED:
        status, raw = send(emulator, method, path, data)
        assert status < 500, f"{method} {path} {data[:60]!r}: {status} {raw[:300]!r}"
        if status >= 400:
            assert json.loads(raw)["error"]["code"], raw


@pytest.mark.parametrize("kind", ["virtualMachines", "networkInterfaces"])
def test_every_wrongly_typed_field_of_a_real_body_is_a_client_error(emulator: EmulatorHandle, kind: str) -> None:
    clients = sdk_clients(emulator)
    nic_id = make_nic(clients, emulator, "real")
    clients.close()
    real = (vm_body("fz", nic_id) if kind == "virtualMachines" else nic_body(emulator.subnet_id)).as_dict()
    namespace = "Microsoft.Compute" if kind == "virtualMachines" else "Microsoft.Network"
    path = f"/subscriptions/{emulator.subscription_id}/resourceGroups/{RG}/providers/{namespace}/{kind}/fz"
    cases = mutations(real)
    assert len(cases) > 50
    for where, body in cases:
        answer = arm(emulator, "PUT", path, body)
        assert answer.status < 500, f"{where}: {answer.status} {answer.body}"


def test_a_query_nested_3000_deep_is_a_bad_request_in_the_graphs_shape(emulator: EmulatorHandle) -> None:
    clients = sdk_clients(emulator)
    for text in ("Resources | where " + "(" * 3000 + "1 == 1" + ")" * 3000,
                 "Resources | where " + " and ".join(["name == 'a'"] * 5000),
                 "Resources | where " + "tolower(" * 3000 + "name" + ")" * 3000 + " == 'x'",
                 "Resources | project x = properties" + ".a" * 5000):
        with pytest.raises(HttpResponseError) as caught:
            clients.graph.resources(QueryRequest(subscriptions=[emulator.subscription_id], query=text))
        assert (caught.value.status_code, caught.value.error.code) == (400, "BadRequest"), text[:60]
        assert caught.value.error.details[0].code
    clients.close()


@pytest.mark.parametrize("data", [b"[1, 2]", b'{"time_scale": NaN}', b'{"time_scale": Infinity}',
                                  b'{"time_scale": -1}', b'{"time_scale": "1"}', b'{"throttling": "no"}',
                                  b'{"page_size": 0}', b'{"index_lag_s": 1e999}', b'{"nope": 1}',
                                  b'{"limits": "aws"}', b'{"limits_overrides": []}',
                                  b'{"limits_overrides": {"arm.reads": {"refill": NaN}}}',
                                  b'{"limits_overrides": {"arm.reads": {"period_s": 0}}}',
                                  b'{"limits_overrides": {"arm.reads": {"burst": 1}}}'])
def test_bad_settings_are_refused_and_settings_stay_valid_json(emulator: EmulatorHandle, data: bytes) -> None:
    before = emulator.settings()
    status, raw = send(emulator, "POST", "/_emulator/settings", data)
    assert status == 400 and json.loads(raw)["error"]["code"]
    assert emulator.settings() == before
    status, raw = send(emulator, "GET", "/_emulator/health", None)
    assert status == 200 and json.loads(raw)["settings"] == before  # strict JSON: no NaN crept in
