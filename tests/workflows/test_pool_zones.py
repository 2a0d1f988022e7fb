"""A pool whose template lists zones spreads its machines evenly over them, also as it replaces and scales."""

from collections import Counter

from models.naming import POOL_TAG
from models.temporal_api import SCALE_UPDATE
from tests.support.sdk import sdk_clients
from tests.workflows.helpers import RESOURCE_GROUP
from tests.workflows.pools import pool_dict, settled, start_pool, template_dict, wait_pool
from tests.workflows.stack import Stack


def _vm_zones(stack: Stack) -> Counter[str]:
    """The zones Azure put the pool's VMs in, read with the real SDK."""
    clients = sdk_clients(stack.emulator)
    try:
        vms = clients.compute.virtual_machines.list(RESOURCE_GROUP)
        return Counter(zone for vm in vms if (vm.tags or {}).get(POOL_TAG) == "web" for zone in vm.zones or [""])
    finally:
        clients.close()


async def test_machines_spread_evenly_over_the_template_zones(stack: Stack) -> None:
    env = stack.env
    template = template_dict(stack.emulator.subnet_id, zones=["1", "2", "3"])
    handle = await start_pool(env.client, stack.task_queue, pool_dict(stack.emulator.subnet_id, 3, template=template))
    status = await wait_pool(env, handle, settled(3))
    assert Counter(m.zone for m in status.machines) == {"1": 1, "2": 1, "3": 1}
    # Every zone has worked once: the next machines take their first zone. (Machines that start while a zone is
    # still being probed take the next one: the offerings memory's rule, docs/capacity.md.)
    await handle.execute_update(SCALE_UPDATE, {"replicas": 6})
    status = await wait_pool(env, handle, settled(6))
    assert Counter(m.zone for m in status.machines) == {"1": 2, "2": 2, "3": 2}
    assert _vm_zones(stack) == {"1": 2, "2": 2, "3": 2}
    await handle.execute_update(SCALE_UPDATE, {"replicas": 7})
    status = await wait_pool(env, handle, settled(7))
    assert sorted(Counter(m.zone for m in status.machines).values()) == [2, 2, 3]
    await handle.signal("delete")
    await handle.result()
