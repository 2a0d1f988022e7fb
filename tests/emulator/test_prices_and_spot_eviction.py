"""The Retail Prices API (public: no token) with its paging and filters, and Resource Graph's SpotResources eviction
buckets read through the real SDK."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request

import pytest
from azure.mgmt.resourcegraph.models import QueryRequest, QueryRequestOptions

from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients

VMS_IN_WESTEUROPE = "serviceName eq 'Virtual Machines' and armRegionName eq 'westeurope' and priceType eq 'Consumption'"


def prices(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=30) as answer:  # no Authorization header: the API is public
        return json.loads(answer.read())


def first_page(emulator: EmulatorHandle, filter_text: str) -> dict:
    return prices(f"{emulator.url}/api/retail/prices?" + urllib.parse.urlencode({"$filter": filter_text}))


def test_a_filter_narrows_to_one_size_and_region_with_its_spot_price(emulator: EmulatorHandle) -> None:
    answer = first_page(emulator, "armRegionName eq 'westeurope' and armSkuName eq 'Standard_D2s_v5'")
    assert answer["BillingCurrency"] == "USD" and answer["NextPageLink"] is None and answer["Count"] == 2
    by_sku = {item["skuName"]: item for item in answer["Items"]}
    assert set(by_sku) == {"D2s v5", "D2s v5 Spot"}
    regular, spot = by_sku["D2s v5"], by_sku["D2s v5 Spot"]
    assert regular["unitOfMeasure"] == "1 Hour" and regular["type"] == "Consumption"
    assert 0 < spot["retailPrice"] < regular["retailPrice"]


def test_pages_follow_next_page_link_and_a_control_call_sets_a_price(emulator: EmulatorHandle) -> None:
    emulator._call("POST", "/_emulator/prices", {"vm_size": "Standard_D4s_v5", "location": "westeurope",
                                                 "usd_per_hour": 0.01})
    emulator.settings(page_size=50)
    answer, items = first_page(emulator, "serviceName eq 'Virtual Machines'"), []
    pages = 1
    items += answer["Items"]
    while answer["NextPageLink"]:
        answer = prices(answer["NextPageLink"])
        items += answer["Items"]
        pages += 1
    assert pages > 2 and len({i["meterId"] for i in items}) == len(items)  # every item once, over the pages
    chosen = [i for i in items if i["armSkuName"] == "Standard_D4s_v5" and i["armRegionName"] == "westeurope"
              and not i["skuName"].endswith("Spot")]
    assert [i["retailPrice"] for i in chosen] == [0.01]
    assert {i["type"] for i in first_page(emulator, VMS_IN_WESTEUROPE)["Items"]} == {"Consumption"}


def test_an_unsupported_filter_is_refused(emulator: EmulatorHandle) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        first_page(emulator, "retailPrice gt 1")
    assert refused.value.code == 400


def test_spot_eviction_buckets_in_spotresources(emulator: EmulatorHandle, clients: SyncClients) -> None:
    emulator._call("POST", "/_emulator/spot-eviction-rates", {"vm_size": "Standard_D2s_v5", "location": "westeurope",
                                                              "eviction_rate": "15-20"})
    query = ("SpotResources | where type =~ 'microsoft.compute/skuspotevictionrate/location' "
             "| where location =~ 'westeurope' "
             "| project skuName = tostring(sku.name), location, spotEvictionRate = tostring(properties.evictionRate)")
    request = QueryRequest(subscriptions=[emulator.subscription_id], query=query,
                           options=QueryRequestOptions(result_format="objectArray"))
    rows = {r["skuName"]: r["spotEvictionRate"] for r in clients.graph.resources(request).as_dict()["data"]}
    assert rows["standard_d2s_v5"] == "15-20" and rows["standard_d4s_v5"] == "0-5"
    assert rows["standard_d2s_v3"] == "5-10"
