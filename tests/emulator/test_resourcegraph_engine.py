"""Unit tests of the Resource Graph query engine (pure functions: query text + rows -> response body).

Rows are realistic: two machines with similar names (vm1, vm10) with their NICs and disks, an
untagged vnet and a foreign VM that carries user tags only.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from emulator.graph.query.engine import execute
from emulator.graph.query.errors import QueryError
from tests.emulator.conformance_catalog import MISSES

SUBSCRIPTION = "00000000-0000-0000-0000-000000000000"
TENANT = "11111111-1111-1111-1111-111111111111"


def arm_id(provider: str, kind: str, name: str, group: str = "azmc-demo") -> str:
    return f"/subscriptions/{SUBSCRIPTION}/resourceGroups/{group}/providers/{provider}/{kind}/{name}"


def row(
    provider: str,
    kind: str,
    name: str,
    *,
    tags: dict[str, str] | None = None,
    properties: dict[str, Any] | None = None,
    managed_by: str = "",
    location: str = "westeurope",
    group: str = "azmc-demo",
) -> dict[str, Any]:
    return {
        "id": arm_id(provider, kind, name, group),
        "name": name,
        "type": f"{provider}/{kind}".lower(),
        "tenantId": TENANT,
        "kind": "",
        "location": location,
        "resourceGroup": group.lower(),
        "subscriptionId": SUBSCRIPTION,
        "managedBy": managed_by,
        "sku": None,
        "plan": None,
        "properties": properties or {},
        "tags": tags or {},
        "zones": None,
        "identity": None,
    }


def machine_rows(vm: str, pool: str, data_disks: int = 0) -> list[dict[str, Any]]:
    tags = {"azmc-machine": vm, "azmc-pool": pool, "team": "Platform"}
    vm_id = arm_id("Microsoft.Compute", "virtualMachines", vm)
    nic_properties = {"provisioningState": "Succeeded", "virtualMachine": {"id": vm_id}}
    nic = row("Microsoft.Network", "networkInterfaces", f"{vm}-nic", tags=tags, properties=nic_properties)
    os_properties = {"diskState": "Attached", "diskSizeGB": 30, "osType": "Linux"}
    os_disk = row("Microsoft.Compute", "disks", f"{vm}-os-disk", tags=tags, managed_by=vm_id, properties=os_properties)
    data = [
        row(
            "Microsoft.Compute",
            "disks",
            f"{vm}-{lun}-data-disk",
            tags=tags,
            managed_by=vm_id,
            properties={"diskState": "Attached", "diskSizeGB": 64},
        )
        for lun in range(data_disks)
    ]
    vm_properties = {
        "provisioningState": "Succeeded",
        "hardwareProfile": {"vmSize": "Standard_D2s_v5"},
        "storageProfile": {"osDisk": {"osType": "Linux", "name": f"{vm}-os-disk"}},
    }
    machine = row("Microsoft.Compute", "virtualMachines", vm, tags=tags, properties=vm_properties)
    return [machine, nic, os_disk, *data]


def fleet() -> list[dict[str, Any]]:
    """vm1 (pool-a, 3 resources), vm10 (pool-b, 5 resources), an untagged vnet, a foreign VM."""
    foreign = row(
        "Microsoft.Compute",
        "virtualMachines",
        "Legacy-VM",
        tags={"env": "prod"},
        group="Other-RG",
        location="northeurope",
        properties={"provisioningState": "Failed", "storageProfile": {"osDisk": {"osType": "Windows"}}},
    )
    vnet = row("Microsoft.Network", "virtualNetworks", "azmc-vnet", properties={"provisioningState": "Succeeded"})
    return [*machine_rows("vm1", "pool-a"), *machine_rows("vm10", "pool-b", data_disks=2), vnet, foreign]


def many_nics(count: int) -> list[dict[str, Any]]:
    """`count` tagged NICs for paging tests, named so that id order is name order."""
    return [
        row("Microsoft.Network", "networkInterfaces", f"nic-{index:04d}", tags={"azmc-machine": f"m{index}"})
        for index in range(count)
    ]


def names(query: str, rows: list[dict[str, Any]] | None = None, **options: Any) -> list[str]:
    body = execute(query, fleet() if rows is None else rows, options or None)
    return [item["name"] for item in body["data"]]


def where(condition: str) -> set[str]:
    return set(names(f"Resources | where {condition} | project id, name"))


VM1 = {"vm1", "vm1-nic", "vm1-os-disk"}
VM10 = {"vm10", "vm10-nic", "vm10-os-disk", "vm10-0-data-disk", "vm10-1-data-disk"}
ALL = VM1 | VM10 | {"azmc-vnet", "Legacy-VM"}


# ---- response shape -----------------------------------------------------------------------------
def test_whole_rows_carry_every_resources_column_and_the_response_envelope() -> None:
    body = execute("Resources", fleet(), None)

    assert list(body) == ["totalRecords", "count", "resultTruncated", "data", "facets"]
    assert (body["totalRecords"], body["count"], body["resultTruncated"]) == (10, 10, "false")
    assert body["facets"] == []
    assert list(body["data"][0]) == [
        "id", "name", "type", "tenantId", "kind", "location", "resourceGroup", "subscriptionId",
        "managedBy", "sku", "plan", "properties", "tags", "identity", "zones", "extendedLocation",
    ]  # fmt: skip
    assert {item["name"] for item in body["data"]} == ALL


def test_table_names_are_case_insensitive_but_only_resources_exists() -> None:
    assert set(names("resources | project id, name")) == ALL
    with pytest.raises(QueryError, match="unsupported table 'ResourceContainers'"):
        execute("ResourceContainers | project id", fleet(), None)


def test_the_engine_does_not_change_the_rows_it_is_given() -> None:
    rows = fleet()
    snapshot = json.dumps(rows, sort_keys=True)
    execute("Resources | extend tagKeys = bag_keys(tags) | project id, tagKeys | order by id asc", rows, None)
    assert json.dumps(rows, sort_keys=True) == snapshot


# ---- where: equality operators and Resource Graph's null semantics -------------------------------
def test_case_insensitive_equals_matches_one_machine_not_its_similar_prefix_twin() -> None:
    assert where("tags['azmc-machine'] =~ 'VM1'") == VM1
    assert where("tags['azmc-machine'] =~ 'vm10'") == VM10


def test_double_equals_is_case_sensitive() -> None:
    assert where("tags['azmc-machine'] == 'VM1'") == set()
    assert where("tags['azmc-machine'] == 'vm1'") == VM1
    assert where('type == "Microsoft.Compute/virtualMachines"') == set()  # types are lower-case
    assert where('type == "microsoft.compute/virtualmachines"') == {"vm1", "vm10", "Legacy-VM"}


def test_not_equals_includes_rows_without_the_tag() -> None:
    assert where("tags['azmc-machine'] != 'vm1'") == ALL - VM1
    assert where("name !~ 'VM1'") == ALL - {"vm1"}


def test_missing_tag_compares_as_empty() -> None:
    assert where("tags['azmc-machine'] == ''") == {"azmc-vnet", "Legacy-VM"}
    assert where("isempty(tags['azmc-machine'])") == {"azmc-vnet", "Legacy-VM"}
    assert where("isnotempty(tags['azmc-machine'])") == VM1 | VM10
    assert where("isnotempty(managedBy)") == {"vm1-os-disk", "vm10-os-disk", "vm10-0-data-disk", "vm10-1-data-disk"}


# ---- where: string operators ---------------------------------------------------------------------
def test_startswith_is_case_insensitive_and_catches_both_similar_names() -> None:
    assert where("name startswith 'VM1'") == VM1 | VM10
    assert where("name startswith_cs 'VM1'") == set()
    assert where("name !startswith 'vm1'") == {"azmc-vnet", "Legacy-VM"}


def test_has_matches_whole_terms_so_vm1_does_not_match_vm10() -> None:
    assert where("name has 'VM1'") == VM1
    assert where("name !has 'vm1'") == ALL - VM1
    assert where("name hasprefix 'os'") == {"vm1-os-disk", "vm10-os-disk"}
    assert where("name hassuffix 'disk'") == {"vm1-os-disk", "vm10-os-disk", "vm10-0-data-disk", "vm10-1-data-disk"}


def test_contains_and_endswith() -> None:
    assert where("name contains 'NIC'") == {"vm1-nic", "vm10-nic"}
    assert where("name contains_cs 'NIC'") == set()
    assert where("name !contains 'disk'") == ALL - {
        "vm1-os-disk",
        "vm10-os-disk",
        "vm10-0-data-disk",
        "vm10-1-data-disk",
    }
    assert where("properties.virtualMachine.id endswith '/virtualMachines/vm10'") == {"vm10-nic"}


def test_in_lists_case_insensitive_and_sensitive() -> None:
    nics_and_disks = "('Microsoft.Network/networkInterfaces', 'MICROSOFT.COMPUTE/DISKS')"
    assert where(f"type in~ {nics_and_disks}") == ALL - {"vm1", "vm10", "azmc-vnet", "Legacy-VM"}
    assert where("type in ('Microsoft.Network/networkInterfaces', 'microsoft.compute/disks')") == {
        "vm1-os-disk", "vm10-os-disk", "vm10-0-data-disk", "vm10-1-data-disk",
    }  # fmt: skip
    assert where("tags['azmc-machine'] in ('vm1', 'vm10')") == VM1 | VM10
    assert where("tags['azmc-machine'] !in ('vm1', 'vm10')") == {"azmc-vnet", "Legacy-VM"}
    assert where("name !in~ ('VM1', 'VM10', 'AZMC-VNET')") == ALL - {"vm1", "vm10", "azmc-vnet"}


def test_and_binds_tighter_than_or_and_parentheses_override() -> None:
    vms = "type =~ 'microsoft.compute/virtualmachines'"
    assert where(f"name == 'vm1-nic' or name startswith 'vm10' and {vms}") == {"vm1-nic", "vm10"}
    assert where(f"(name == 'vm1-nic' or name startswith 'vm10') and {vms}") == {"vm10"}
    assert where("not(name startswith 'vm')") == {"azmc-vnet", "Legacy-VM"}
    assert where("not(isempty(tags.env)) or resourceGroup == 'azmc-demo' and name has 'nic'") == {
        "Legacy-VM", "vm1-nic", "vm10-nic",
    }  # fmt: skip


def test_string_literals_in_both_quotes_with_escapes() -> None:
    assert where('name == "vm1"') == {"vm1"}
    assert where("name == 'vm1' or name == 'it\\'s'") == {"vm1"}
    assert where("name == @'vm1'") == {"vm1"}


# ---- paths into tags and properties --------------------------------------------------------------
def test_tag_paths_in_bracket_and_dot_forms_agree() -> None:
    assert where("tags.team == 'Platform'") == where("tags['team'] == 'Platform'") == VM1 | VM10
    assert where('tags["azmc-pool"] =~ "POOL-B"') == VM10


def test_nested_property_paths_in_dot_and_bracket_forms() -> None:
    assert where("properties.storageProfile.osDisk.osType =~ 'windows'") == {"Legacy-VM"}
    assert where("properties['storageProfile']['osDisk']['osType'] == 'Linux'") == {"vm1", "vm10"}
    assert where("properties.provisioningState == 'Failed'") == {"Legacy-VM"}
    assert where("properties.no.such.path == 'x'") == set()


def test_numeric_comparisons_on_properties() -> None:
    assert where("properties.diskSizeGB > 40") == {"vm10-0-data-disk", "vm10-1-data-disk"}
    assert where("properties.diskSizeGB <= 30") == {"vm1-os-disk", "vm10-os-disk"}


def test_bag_keys_with_has_and_hasprefix() -> None:
    extend = "Resources | extend tagKeys = bag_keys(tags) | where"
    assert set(names(f"{extend} tagKeys has 'azmc-machine' | project id, name")) == VM1 | VM10
    assert set(names(f"{extend} tagKeys has 'ENV' | project id, name")) == {"Legacy-VM"}
    assert set(names(f"{extend} tagKeys hasprefix 'azmc-' | project id, name")) == VM1 | VM10
    assert set(names(f"{extend} tagKeys !has 'azmc-machine' | project id, name")) == {"azmc-vnet", "Legacy-VM"}
    keys = execute("Resources | extend tagKeys = bag_keys(tags) | where name == 'vm1' | project tagKeys", fleet(), None)
    assert keys["data"] == [{"tagKeys": ["azmc-machine", "azmc-pool", "team"]}]


# ---- project, extend, order, limit ---------------------------------------------------------------
def test_project_names_aliases_and_derived_columns() -> None:
    query = (
        "Resources | where name == 'vm10'"
        " | project id, machine = tags['azmc-machine'], size = properties.hardwareProfile.vmSize,"
        " tags.team, lowered = tolower(name)"
    )
    (item,) = execute(query, fleet(), None)["data"]
    assert item == {
        "id": arm_id("Microsoft.Compute", "virtualMachines", "vm10"),
        "machine": "vm10",
        "size": "Standard_D2s_v5",
        "tags_team": "Platform",
        "lowered": "vm10",
    }


def test_columns_dropped_by_project_can_no_longer_be_used() -> None:
    with pytest.raises(QueryError, match="Failed to resolve scalar expression named 'location'"):
        execute("Resources | project id, name | where location == 'westeurope'", fleet(), None)
    with pytest.raises(QueryError, match="named 'Name'"):
        execute("Resources | where Name == 'vm1'", fleet(), None)  # column names are case-sensitive


def test_order_by_directions_default_and_null_placement() -> None:
    assert names("Resources | where type =~ 'microsoft.compute/disks' | order by name asc | project id, name") == [
        "vm1-os-disk", "vm10-0-data-disk", "vm10-1-data-disk", "vm10-os-disk",
    ]  # fmt: skip
    # KQL sorts descending when no direction is given; `sort by` is the same operator.
    assert names("Resources | where name startswith 'vm1-' | sort by name | project id, name") == [
        "vm1-os-disk", "vm1-nic",
    ]  # fmt: skip
    by_machine = names("Resources | extend m = tags['azmc-machine'] | order by m asc, name desc | project id, name")
    assert by_machine[:2] == ["azmc-vnet", "Legacy-VM"]  # nulls first when ascending
    assert by_machine[2:5] == ["vm1-os-disk", "vm1-nic", "vm1"]
    descending = names("Resources | extend m = tags['azmc-machine'] | order by m desc | project id, name")
    assert set(descending[-2:]) == {"azmc-vnet", "Legacy-VM"}  # nulls last when descending


def test_order_by_numbers_compares_numerically() -> None:
    query = "Resources | where isnotnull(properties.diskSizeGB) | order by properties.diskSizeGB desc, name asc"
    assert names(query) == ["vm10-0-data-disk", "vm10-1-data-disk", "vm1-os-disk", "vm10-os-disk"]


def test_limit_and_take_cut_the_result_and_total_records() -> None:
    body = execute("Resources | order by name asc | limit 3", fleet(), None)
    assert [item["name"] for item in body["data"]] == ["Legacy-VM", "azmc-vnet", "vm1"]
    assert (body["totalRecords"], body["count"], body["resultTruncated"]) == (3, 3, "false")
    assert names("Resources | order by name asc | take 1 | project id, name") == ["Legacy-VM"]


# ---- summarize and count -------------------------------------------------------------------------
def test_summarize_count_by_type() -> None:
    body = execute("Resources | summarize count() by type", fleet(), None)
    assert body["data"] == [
        {"type": "microsoft.compute/disks", "count_": 4},
        {"type": "microsoft.compute/virtualmachines", "count_": 3},
        {"type": "microsoft.network/networkinterfaces", "count_": 2},
        {"type": "microsoft.network/virtualnetworks", "count_": 1},
    ]
    assert body["totalRecords"] == 4


def test_summarize_named_count_group_by_expression_and_count_operator() -> None:
    query = (
        "Resources | where isnotempty(tags['azmc-pool']) | summarize n = count() by pool = tostring(tags['azmc-pool'])"
    )
    assert execute(query, fleet(), None)["data"] == [{"pool": "pool-a", "n": 3}, {"pool": "pool-b", "n": 5}]
    assert execute("Resources | summarize by location", fleet(), None)["data"] == [
        {"location": "northeurope"}, {"location": "westeurope"},
    ]  # fmt: skip
    assert execute("Resources | where name has 'vm10' | count", fleet(), None)["data"] == [{"Count": 5}]
    assert execute("Resources | where name == 'none' | summarize count()", fleet(), None)["data"] == [{"count_": 0}]


# ---- paging --------------------------------------------------------------------------------------
NIC_QUERY = "Resources | where type =~ 'microsoft.network/networkinterfaces' | project id, name"


def test_default_page_is_1000_rows_and_skip_tokens_walk_every_row_once() -> None:
    rows = many_nics(2500)
    pages: list[dict[str, Any]] = [execute(NIC_QUERY, rows, None)]
    while "$skipToken" in pages[-1]:
        pages.append(execute(NIC_QUERY, rows, {"$skipToken": pages[-1]["$skipToken"]}))

    assert [page["count"] for page in pages] == [1000, 1000, 500]
    assert {page["totalRecords"] for page in pages} == {2500}
    assert {page["resultTruncated"] for page in pages} == {"false"}
    walked = [item["name"] for page in pages for item in page["data"]]
    assert walked == [f"nic-{index:04d}" for index in range(2500)]


def test_top_and_skip_choose_the_window_and_the_token_continues_after_it() -> None:
    rows = many_nics(10)
    first = execute(NIC_QUERY, rows, {"$top": 3, "$skip": 4})
    assert [item["name"] for item in first["data"]] == ["nic-0004", "nic-0005", "nic-0006"]
    assert (first["totalRecords"], first["count"]) == (10, 3)

    second = execute(NIC_QUERY, rows, {"$skipToken": first["$skipToken"]})
    assert [item["name"] for item in second["data"]] == ["nic-0007", "nic-0008", "nic-0009"]
    assert "$skipToken" not in second  # the last page carries no token

    wider = execute(NIC_QUERY, rows, {"$skipToken": first["$skipToken"], "$top": 1})
    assert [item["name"] for item in wider["data"]] == ["nic-0007"]
    again = execute(NIC_QUERY, rows, {"$skipToken": first["$skipToken"]})
    assert again == second  # tokens are stateless: the same token gives the same page


def test_paging_follows_the_query_order() -> None:
    rows = many_nics(7)
    query = NIC_QUERY + " | order by name desc"
    first = execute(query, rows, {"$top": 4})
    rest = execute(query, rows, {"$skipToken": first["$skipToken"], "$top": 4})
    walked = [item["name"] for item in first["data"] + rest["data"]]
    assert walked == [f"nic-{index:04d}" for index in reversed(range(7))]


def test_skip_past_the_end_answers_an_empty_page() -> None:
    body = execute(NIC_QUERY, many_nics(5), {"$skip": 10})
    assert (body["totalRecords"], body["count"], body["data"]) == (5, 0, [])
    assert "$skipToken" not in body


def test_limit_disables_paging_and_marks_the_result_truncated() -> None:
    rows = many_nics(1500)
    body = execute(NIC_QUERY + " | take 1200", rows, {"$skip": 700})
    assert (body["totalRecords"], body["count"], body["resultTruncated"]) == (1200, 1000, "true")
    assert "$skipToken" not in body
    assert body["data"][0]["name"] == "nic-0000"  # $skip is ignored with limit/take


def test_results_without_an_id_column_cannot_be_paged() -> None:
    rows = many_nics(1500)
    body = execute("Resources | project name", rows, None)
    assert (body["count"], body["resultTruncated"]) == (1000, "true")
    assert "$skipToken" not in body
    tail = execute("Resources | project name", rows, {"$skip": 1000})
    assert tail["count"] == 500  # $skip still works, only tokens need the id


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"$top": 1001}, r"\$top must be between 1 and 1000"),
        ({"$top": 0}, r"\$top must be between 1 and 1000"),
        ({"$skip": -1}, r"\$skip must not be negative"),
        ({"$top": "10"}, r"\$top must be an integer"),
        ({"resultFormat": "csv"}, "unsupported resultFormat 'csv'"),
    ],
)
def test_bad_paging_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(QueryError, match=message):
        execute(NIC_QUERY, many_nics(3), options)


def test_skip_token_of_another_query_is_refused() -> None:
    rows = many_nics(5)
    token = execute(NIC_QUERY, rows, {"$top": 2})["$skipToken"]
    with pytest.raises(QueryError, match="belongs to a different query") as caught:
        execute(NIC_QUERY + " | order by name asc", rows, {"$skipToken": token})
    assert caught.value.detail_code == "InvalidSkipToken"


@pytest.mark.parametrize(
    "token",
    [
        "not a token",
        base64.b64encode(b"{}").decode(),
        base64.b64encode(json.dumps({"v": 1, "q": "x", "o": -5, "n": 2}).encode()).decode(),
        # Microsoft's own example token: well-formed base64, but not one this service issued.
        "eyAibm8iOiAibHVjayIsICJidXQiOiAibmljZSIsICJ0cnkiOiAiISIgfQ==",
    ],
)
def test_malformed_skip_tokens_are_refused(token: str) -> None:
    with pytest.raises(QueryError, match=r"invalid \$skipToken"):
        execute(NIC_QUERY, many_nics(5), {"$skipToken": token})


def test_table_result_format_has_typed_columns_and_row_arrays() -> None:
    body = execute(
        "Resources | where name == 'vm1' | project id, name, tags, n = strlen(name)", fleet(), {"resultFormat": "table"}
    )
    assert body["data"]["columns"] == [
        {"name": "id", "type": "string"},
        {"name": "name", "type": "string"},
        {"name": "tags", "type": "object"},
        {"name": "n", "type": "integer"},
    ]
    assert body["data"]["rows"] == [
        [
            arm_id("Microsoft.Compute", "virtualMachines", "vm1"),
            "vm1",
            {"azmc-machine": "vm1", "azmc-pool": "pool-a", "team": "Platform"},
            3,
        ]
    ]


# ---- join ------------------------------------------------------------------------------------------
def health_row(vm: str, state: str) -> dict[str, Any]:
    vm_id = arm_id("Microsoft.Compute", "virtualMachines", vm)
    return {**row("Microsoft.ResourceHealth", "availabilityStatuses", "current"),
            "id": f"{vm_id}/providers/Microsoft.ResourceHealth/availabilityStatuses/current",
            "properties": {"targetResourceId": vm_id, "targetResourceType": "Microsoft.Compute/virtualMachines",
                           "availabilityState": state}}


def tables(health: list[dict[str, Any]]) -> Any:
    return lambda table: {"resources": fleet(), "healthresources": health}[table]


VMS = "Resources | where type =~ 'microsoft.compute/virtualmachines' | extend vmid = tolower(id)"
HEALTH = "HealthResources | extend vmid = tolower(tostring(properties.targetResourceId))"


def joined(query: str, health: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return execute(query, tables(health), {"resultFormat": "objectArray"})["data"]


def test_leftouter_join_keeps_every_left_row_with_the_right_columns_or_nulls() -> None:
    query = (f"{VMS} | join kind=leftouter ({HEALTH} | project vmid, availability = "
             "tostring(properties.availabilityState)) on vmid | project name, availability, vmid, vmid1")
    rows = joined(query, [health_row("vm1", "Unavailable")])
    found = {r["name"]: (r["availability"], r["vmid"] == r["vmid1"]) for r in rows}
    assert found == {"vm1": ("Unavailable", True), "vm10": (None, False), "Legacy-VM": (None, False)}


def test_inner_join_on_left_and_right_columns_suffixes_clashing_names() -> None:
    query = f"{VMS} | join kind=inner (HealthResources) on $left.id == $right.properties.targetResourceId"
    with pytest.raises(QueryError, match="expected"):  # the right side must be a column, not a path
        joined(query, [])
    query = (f"{VMS} | join kind=inner ({HEALTH} | extend target = tostring(properties.targetResourceId)) "
             "on $left.id == $right.target")
    rows = joined(query, [health_row("vm10", "Available")])
    assert [(r["name"], r["name1"], r["id1"].endswith("/availabilityStatuses/current")) for r in rows] == [
        ("vm10", "current", True)]
    assert {"id", "id1", "name", "name1", "properties1", "vmid1", "target"} <= set(rows[0])


def test_default_innerunique_join_takes_one_left_row_per_key() -> None:
    query = "Resources | extend k = 'same' | join (HealthResources | extend k = 'same' | project k) on k | count"
    assert execute(query, tables([health_row("vm1", "Available")]), None)["data"] == [{"Count": 1}]
    query = "Resources | extend k = 'same' | join kind=inner (HealthResources | extend k = 'same') on k | count"
    assert execute(query, tables([health_row("vm1", "Available")]), None)["data"] == [{"Count": len(fleet())}]


def test_healthresources_is_empty_for_a_list_of_resources() -> None:
    assert execute("HealthResources | count", fleet(), None)["data"] == [{"Count": 0}]


# ---- refusing what is outside the subset ---------------------------------------------------------
@pytest.mark.parametrize(
    ("query", "message", "detail_code"),
    [
        ("Resources | join kind=rightouter (Resources) on id", "unsupported join kind 'rightouter'",
         "UnsupportedOperator"),
        ("Resources | join (Resources) on $left.id == $left.name", "expected \\$left.<column> == \\$right",
         "InvalidQuery"),
        ("Resources | join (Resources) on nope", "join: failed to resolve column 'nope'", "InvalidQuery"),
        ("Resources | mv-expand tags", "unsupported operator 'mv-expand'", "UnsupportedOperator"),
        ("Resources | parse name with 'vm' n", "unsupported operator 'parse'", "UnsupportedOperator"),
        ("Resources | union ResourceContainers", "unsupported operator 'union'", "UnsupportedOperator"),
        ("Resources | project-away tags", "unsupported operator 'project-away'", "UnsupportedOperator"),
        ("Resources | where name matches regex 'vm.*'", "unsupported operator 'matches'", "UnsupportedOperator"),
        ("Resources | where name !between (1 .. 2)", "unsupported operator '!between'", "UnsupportedOperator"),
        ("let x = 1; Resources", "unsupported statement 'let'", "UnsupportedOperator"),
        ("Resources | where foo(name) == 'x'", "unsupported function 'foo'", "UnsupportedFunction"),
        ("Resources | extend n = parse_json(name)", "unsupported function 'parse_json'", "UnsupportedFunction"),
        ("Resources | summarize dcount(name) by type", "unsupported aggregation", "UnsupportedFunction"),
        ("Resources | where name == 'vm1", "unterminated string literal", "InvalidQuery"),
        ("Resources | where name ==", "expected|unexpected end of query", "InvalidQuery"),
        ("Resources | where isempty(name, type)", "expects 1 argument", "InvalidQuery"),
        ("Resources | where name == 'a' $", "unexpected character '\\$'", "InvalidQuery"),
        ("   ", "the query is empty", "InvalidQuery"),
        ("Resources | where tolower(name)", "'tolower' does not return a boolean", "InvalidQuery"),
        ("Resources | where name == 'vm1' or 'vm10'", "cannot be used as a predicate", "InvalidQuery"),
    ],
)
def test_queries_outside_the_subset_are_refused_naming_the_part(query: str, message: str, detail_code: str) -> None:
    with pytest.raises(QueryError, match=message) as caught:
        execute(query, fleet(), None)
    assert caught.value.detail_code == detail_code


def test_query_error_body_is_an_arm_bad_request() -> None:
    with pytest.raises(QueryError) as caught:
        execute("Resources | mv-expand tags", fleet(), None)
    assert caught.value.error_body() == {
        "error": {
            "code": "BadRequest",
            "message": "unsupported operator 'mv-expand'",
            "details": [{"code": "UnsupportedOperator", "message": "unsupported operator 'mv-expand'"}],
        }
    }


# ---- Microsoft's REST examples: same response keys, same column names ------------------------------
EXAMPLES = Path(__file__).parent / "rest_examples" / "resourcegraph"


def test_rest_examples_are_there() -> None:
    """An empty folder would silently parametrize the check below away."""
    assert len(list(EXAMPLES.glob("*.json"))) >= 6


def example_rows() -> list[dict[str, Any]]:
    tests = [row("Microsoft.Compute", "disks", f"test-disk-{index}") for index in range(8)]
    return fleet() + tests


@pytest.mark.parametrize("example", sorted(path.name for path in EXAMPLES.glob("*.json")))
def test_rest_examples_answer_with_the_example_keys(example: str) -> None:
    spec = json.loads((EXAMPLES / example).read_text())
    request = spec["parameters"]["query"]
    expected = spec["responses"]["200"]["body"]
    options = dict(request.get("options") or {})
    if "$skipToken" in options:  # Microsoft's token is a placeholder; continue from our first page
        options["$skipToken"] = execute(request["query"], example_rows(), {"$top": 3})["$skipToken"]

    body = execute(request["query"], example_rows(), options)

    assert set(body) == set(expected)
    assert body["count"] == len(body["data"]) > 0
    if f"resourcegraph/{example}" not in MISSES:  # else it names a column otherwise, on purpose (MISSES says why)
        assert set(body["data"][0]) == set(expected["data"][0])
