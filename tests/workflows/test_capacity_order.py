"""Spec `capacity_order`: `price` tries the cheapest allowed size first (the Retail Prices API's), `listed` the
sizes as written; a Spot machine under `price_and_eviction` avoids a cheap size Azure evicts often."""

from typing import Any

import pytest

from activities.reading import prices
from models.status import Phase
from tests.workflows.data_disks import vm
from tests.workflows.helpers import in_phase, spec_dict, start_machine, wait_for
from tests.workflows.stack import Stack

SIZES = ["Standard_D4s_v5", "Standard_D2as_v5", "Standard_E2s_v5"]  # listed dearest first


async def _size_chosen(stack: Stack, **overrides: Any) -> str:
    spec = spec_dict(subnet_id=stack.emulator.subnet_id, pool="", data_disks=[], **overrides)
    spec.pop("vm_size")
    handle = await start_machine(stack.env.client, stack.task_queue, {**spec, "vm_sizes": SIZES})
    await wait_for(stack.env, handle, in_phase(Phase.RUNNING))
    chosen = str(vm(stack)["vmSize"])
    await handle.signal("delete")
    await handle.result()
    return chosen


@pytest.fixture(autouse=True)
def _fresh_prices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prices, "_CACHE", {})


async def test_price_creates_the_cheapest_size_and_listed_the_first(stack: Stack) -> None:
    assert await _size_chosen(stack, capacity_order="price") == "Standard_D2as_v5"
    assert await _size_chosen(stack) == "Standard_D4s_v5"  # listed, the default: as written


async def test_price_and_eviction_avoids_a_cheap_spot_size_evicted_often(stack: Stack) -> None:
    # D2as_v5 Spot is the cheapest (about $0.013 an hour) but evicted often; E2s_v5 Spot costs $0.02 and rarely is.
    stack.emulator._call("POST", "/_emulator/spot-eviction-rates", {"vm_size": "Standard_D2as_v5",
                                                                    "location": "westeurope", "eviction_rate": "20+"})
    stack.emulator._call("POST", "/_emulator/prices", {"vm_size": "Standard_E2s_v5", "location": "westeurope",
                                                       "spot": True, "usd_per_hour": 0.02})
    spot: dict[str, Any] = {"priority": "Spot", "spot": {"eviction_policy": "Delete"}}
    assert await _size_chosen(stack, capacity_order="price", **spot) == "Standard_D2as_v5"
    assert await _size_chosen(stack, capacity_order="price_and_eviction", **spot) == "Standard_E2s_v5"
