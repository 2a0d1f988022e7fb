"""The fleet survey's query reads every VM's Resource Health in the same pages as the VMs: the join adds
columns, not rows, so a fleet costs one graph page per PAGE_SIZE machines, healthy or not."""

import math

from activities.reading import graph
from activities.reading.graph import query_pages, sweep_query
from activities.sweep.survey import resource_health


async def test_the_survey_joins_each_vms_health_without_adding_rows(driver, make_spec, create_machine, emulator,
                                                                    monkeypatch) -> None:
    monkeypatch.setattr(graph, "PAGE_SIZE", 2)  # 2 machines a page stand for 1,000
    for i in range(5):
        await create_machine(make_spec(f"vm{i}", data_disks=[]))
    emulator.force_resource_health(["vm1"], "Unavailable", summary="The host of this VM failed.")

    rows, pages = await query_pages(driver._clients, sweep_query(), "survey test")
    vms = {r["name"]: r for r in rows if r["type"] == graph.VM_TYPE}
    assert len(rows) == len(vms) == 5  # one row per machine: no NIC or disk row, no row per health status
    assert pages == math.ceil(5 / 2)
    assert resource_health(vms["vm1"]) == ("Unavailable", "Platform Initiated", "The host of this VM failed.")
    assert {name: resource_health(row)[0] for name, row in vms.items() if name != "vm1"} == {
        "vm0": "Available", "vm2": "Available", "vm3": "Available", "vm4": "Available"}
