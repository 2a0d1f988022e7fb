"""Conformance: every operation the emulator serves answers Microsoft's REST examples of it as Azure does.

Each vendored example (tests/emulator/rest_examples, SOURCES.md) is requested as written, after the state it
assumes is made (conformance_setup); the status must be one the example lists and the answer must carry every key
of the example's response with its JSON type (conformance_shape). What the emulator does not model is in
conformance_catalog.MISSES with the reason, and listed in emulator/README.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from emulator.app import build_router
from emulator.arm.handlers.not_emulated import NOT_EMULATED
from tests.emulator import conformance_catalog as catalog
from tests.emulator import conformance_listing
from tests.emulator import conformance_setup as setup
from tests.emulator.conformance_shape import differences
from tests.support.arm_http import ArmAnswer, arm
from tests.support.emulator import EmulatorHandle

EXAMPLES = Path(__file__).parent / "rest_examples"
# Real Azure answers recorded by the Azure SDK for Python's tests (each file names its recording).
TRANSCRIPTS = Path(__file__).parent / "rest_transcripts"
GRAPH = catalog.OPERATIONS["Resources"].path
# Query parameters by name; every other scalar parameter is part of the path.
_QUERY = {"forceDeletion", "statusOnly", "includeExtendedLocations", "expand", "hibernate", "skipShutdown",
          "sasUriExpirationTimeInMinutes", "forceDeletionTypes"}
ALL = [example for operation in catalog.OPERATIONS.values() for example in operation.examples]


def load(handle: EmulatorHandle, example: str) -> dict[str, Any]:
    loaded = setup.localize(handle, json.loads((EXAMPLES / example).read_text()))
    loaded["parameters"]["subscriptionId"] = handle.subscription_id
    return loaded


def body_parameter(params: dict[str, Any]) -> str | None:
    """The request body: the one object among the example's parameters."""
    found = [name for name, value in params.items() if isinstance(value, (dict, list))]
    return found[0] if found else None


def send(handle: EmulatorHandle, example: str, operation: catalog.Operation, params: dict[str, Any],
         path: str) -> ArmAnswer:
    name = body_parameter(params)
    body = params[name] if name else None
    if isinstance(body, dict) and "subscriptions" in body:
        body["subscriptions"] = [handle.subscription_id]
    if example.endswith("ResourcesNextPageQuery.json"):
        # The example's skip token is opaque to us; use the one our own first page returns.
        first = arm(handle, "POST", GRAPH, {**body, "options": {"$top": 3}}).body
        body = {**body, "options": {"$skipToken": first["$skipToken"]}}
    query = {k: v for k, v in params.items() if (k.startswith("$") or k in _QUERY) and not isinstance(v, dict)}
    if "expand" in query:  # some examples name `$expand` by its client parameter name
        query["$expand"] = query.pop("expand")
    suffix = f"?{urlencode(query)}" if query else ""
    return arm(handle, operation.method, quote(path) + suffix, body, api_version=params.get("api-version", ""))


def answer_to(handle: EmulatorHandle, example: str) -> tuple[dict[str, Any], ArmAnswer]:
    operation = catalog.OPERATIONS[catalog.operation_of(example)]
    loaded = load(handle, example)
    params = loaded["parameters"]
    if params.get("resourceUri") == "resourceUri":  # the example names no resource: a VM Azure finds unavailable
        params["resourceUri"] = setup.unavailable_vm(handle).lstrip("/")
    path = operation.path.format(**{k: v for k, v in params.items() if isinstance(v, str)})
    setup.prepare(handle, catalog.before(operation, example), loaded, path)
    return loaded, send(handle, example, operation, params, path)


def _id(example: str) -> str:
    return example.split("/")[-1].removesuffix(".json")


@pytest.mark.parametrize("example", [e for e in ALL if not catalog.MISSES.get(e, catalog.Miss("")).refused],
                         ids=_id)
def test_example(emulator: EmulatorHandle, example: str) -> None:
    loaded, answer = answer_to(emulator, example)
    assert str(answer.status) in loaded["responses"], f"{answer.status} {answer.body}"
    expected = (loaded["responses"][str(answer.status)] or {}).get("body")
    if expected is not None:
        known = catalog.MISSES.get(example, catalog.Miss("")).keys | catalog.CIRCUMSTANTIAL.get(
            example, (frozenset(), ""))[0]
        assert differences(expected, answer.body, set(known)) == []


@pytest.mark.parametrize("transcript", sorted(p.name for p in TRANSCRIPTS.glob("*.json")))
def test_recorded_azure_answer(emulator: EmulatorHandle, transcript: str) -> None:
    """A recorded exchange with Azure: the same request gets the recorded status and the recorded body's shape,
    the codes of a recorded error included."""
    recorded = setup.localize(emulator, json.loads((TRANSCRIPTS / transcript).read_text()))
    request, expected = recorded["request"], recorded["response"]
    path = request["path"].replace("/subscriptions//", f"/subscriptions/{emulator.subscription_id}/")
    body = request["body"]
    if "subscriptions" in body:
        body["subscriptions"] = [emulator.subscription_id]
    if "/resourceGroups/" in path:
        setup.group(emulator, path.split("/")[4])
    answer = arm(emulator, request["method"], quote(path), body, api_version=request["api-version"])
    assert answer.status == expected["status"], answer.body
    assert differences(expected["body"], answer.body, set()) == []
    if "error" in expected["body"]:
        assert [d["code"] for d in answer.body["error"]["details"]] == [
            d["code"] for d in expected["body"]["error"]["details"]]


@pytest.mark.parametrize("example", [e for e, miss in catalog.MISSES.items() if miss.refused], ids=_id)
def test_refused_example_says_why(emulator: EmulatorHandle, example: str) -> None:
    _, answer = answer_to(emulator, example)
    assert answer.status == 400 and "not supported by the azmc emulator" in answer.body["error"]["message"]


def test_every_vendored_example_belongs_to_a_served_operation() -> None:
    on_disk = {str(p.relative_to(EXAMPLES)) for p in EXAMPLES.glob("*/*.json")} - {"common/types.json"}
    assert on_disk == set(ALL)
    assert set(catalog.MISSES) | set(catalog.CIRCUMSTANTIAL) <= set(ALL)


def test_the_catalog_names_exactly_the_operations_the_router_serves() -> None:
    refused = {azure for _, _, azure in NOT_EMULATED}
    served = {r.azure for r in build_router().routes if r.azure} - refused
    assert served == set(catalog.OPERATIONS)


@pytest.mark.parametrize(("method", "template", "azure"), NOT_EMULATED[:1] + NOT_EMULATED[-1:])
def test_a_not_emulated_operation_is_refused_as_arm_refuses_an_unknown_type(
        emulator: EmulatorHandle, method: str, template: str, azure: str) -> None:
    path = template.format(sub=emulator.subscription_id, rg="azmc", name="anything")
    answer = arm(emulator, method, path, {} if method != "GET" else None, api_version="2026-04-01")
    assert answer.status == 404 and answer.error_code == "InvalidResourceType"
    assert azure in answer.body["error"]["message"] and "'2026-04-01'" in answer.body["error"]["message"]


def test_every_served_operation_has_examples_unless_microsoft_publishes_none() -> None:
    assert {name for name, operation in catalog.OPERATIONS.items() if not operation.examples} == catalog.UNPUBLISHED


def test_at_least_95_percent_of_the_examples_conform() -> None:
    misses = sum(1 for example in ALL if example in catalog.MISSES)
    assert (len(ALL) - misses) / len(ALL) >= 0.95, f"{misses} of {len(ALL)} examples miss"


def test_the_operations_list_is_current() -> None:
    written = (EXAMPLES / "OPERATIONS.md").read_text()
    assert written == conformance_listing.render(), "run: .venv/bin/python -m tests.emulator.conformance_listing"


def test_the_readme_lists_every_miss() -> None:
    readme = (Path(__file__).parents[2] / "emulator" / "README.md").read_text()
    listed = set(re.findall(r"`([\w./-]+\.json)`", readme.split("## Conformance", 1)[-1]))
    assert {e.split("/")[-1] for e in catalog.MISSES} <= {name.split("/")[-1] for name in listed}
