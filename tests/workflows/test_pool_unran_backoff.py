"""A pool whose machines fail without ever running (its resource group does not exist: each machine is Failed at
once, workflows/machine/creation.py) backs off its replacements instead of churning machines; the first one that
runs ends the backoff."""

from datetime import timedelta

from azure.mgmt.resource.resources import models as rm

from models.durations import humanize
from models.naming import pool_workflow_id
from models.pool import PoolStatus
from models.status import Phase
from models.temporal_api import POOL_WORKFLOW_TYPE
from tests.emulator.builders import LOCATION
from tests.workflows.pools import pool_dict, settled, template_dict, wait_pool
from tests.workflows.stack import Stack
from tests.workflows.sweeping import azure
from workflows.policies import UNRAN_REPLACEMENT_BACKOFF_CAP

GROUP = "not-made-yet"


async def test_a_pool_in_a_missing_resource_group_backs_off_its_replacements(stack: Stack) -> None:
    env, emulator = stack.env, stack.emulator
    template = template_dict(emulator.subnet_id)
    del template["resource_group"]  # a pool's machines live in its group
    spec = pool_dict(emulator.subnet_id, 2, resource_group=GROUP, template=template)
    handle = await env.client.start_workflow(POOL_WORKFLOW_TYPE, spec, id=pool_workflow_id(GROUP, spec["name"]),
                                             task_queue=stack.task_queue, result_type=PoolStatus)
    seen: list[PoolStatus] = []
    await wait_pool(env, handle, lambda s: "without ever running" in s.replacements_held,
                    step=timedelta(seconds=30), virtual_limit=timedelta(minutes=30), seen=seen)
    await env.sleep(timedelta(minutes=30))
    # Half an hour of a group that does not exist: replacements at 30 s, 1, 2, 4, 8, 10 minutes apart, not a
    # machine every few seconds (a Failed machine costs one request: its resource group's list). The sleep may end
    # while one replacement is failing: the pool is back in its backoff, at the cap, moments later.
    later = await wait_pool(env, handle, lambda s: "without ever running" in s.replacements_held,
                            step=timedelta(seconds=5), virtual_limit=timedelta(minutes=1))
    assert f"waits {humanize(UNRAN_REPLACEMENT_BACKOFF_CAP)}" in later.replacements_held, later.replacements_held
    puts = emulator.requests()["by_operation"].get("virtualMachines.put", 0)
    lists = emulator.requests()["by_operation"].get("resources.list", 0)
    assert puts == 0 and lists <= 30, emulator.requests()["by_operation"]  # churning: hundreds

    azure(stack).resources.resource_groups.create_or_update(GROUP, rm.ResourceGroup(location=LOCATION))
    running = await wait_pool(env, handle, settled(2), step=timedelta(minutes=1), virtual_limit=timedelta(minutes=15))
    assert all(m.phase == Phase.RUNNING for m in running.machines) and not running.replacements_held
    await handle.signal("delete")
    await handle.result()
