"""With tracing on (docs/observability.md), a pool's scale is one trace that lasts until every machine is available,
each machine's create is a trace of its own linked to it, and an in-place update is a trace of its own linked to the
machine's create: one trace per operation, never one per workflow."""

from temporalio.client import Client
from temporalio.contrib.opentelemetry import OpenTelemetryPlugin
from temporalio.testing import WorkflowEnvironment

from models.spec_changes import SpecUpdate
from models.temporal_api import UPDATE_SPEC
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.support.spans import recorded
from tests.workflows.conftest import INSTALLATION, TOKEN
from tests.workflows.helpers import RESOURCE_GROUP, lifecycle_worker, spec_dict
from tests.workflows.pools import POOL, pool_dict, settled, start_pool, wait_pool


async def test_a_pool_scale_and_an_update_are_each_a_trace_linked_to_the_one_before(
        workflow_env: WorkflowEnvironment, emulator: EmulatorHandle) -> None:
    traced = Client(**{**workflow_env.client.config(), "plugins": [OpenTelemetryPlugin()]})
    with recorded() as spans:
        async with (emulator_driver(emulator, INSTALLATION, TOKEN) as driver,
                    lifecycle_worker(traced, driver.activities()) as task_queue):  # fmt: skip
            pool = await start_pool(traced, task_queue, pool_dict(emulator.subnet_id, 2))
            status = await wait_pool(workflow_env, pool, settled(2))
            machine = traced.get_workflow_handle(f"machine/{RESOURCE_GROUP}/{status.machines[0].name}")
            spec = {**spec_dict(status.machines[0].name, emulator.subnet_id, pool=POOL), "tags": {"team": "infra"}}
            spec.pop("data_disks")
            answer = await machine.execute_update(UPDATE_SPEC, spec, result_type=SpecUpdate)
            assert answer.changed == ["tags.team"]
            await pool.signal("delete")
            await pool.result()

    (scale,) = spans.named("pool.scale")
    assert scale.attributes["azmc.pool"] == f"{RESOURCE_GROUP}/{POOL}"
    assert scale.attributes["azmc.outcome"] == "every machine available"
    creates = spans.named("machine.create")
    assert len(creates) == 2 and {c.context.trace_id for c in creates}.isdisjoint({scale.context.trace_id})
    for create in creates:  # each machine's create links to the pool's scale that started it
        assert [link.context.span_id for link in create.links] == [scale.context.span_id]
        assert create.end_time - create.start_time <= scale.end_time - scale.start_time
    (update,) = spans.named("machine.update")
    assert update.attributes["azmc.changed"] == "tags.team"  # what changed, never a value
    machine_creates = [c for c in creates if c.attributes["azmc.machine"] == update.attributes["azmc.machine"]]
    assert [link.context.span_id for link in update.links] == [machine_creates[0].context.span_id]
    # Its tag PATCH is in the update's trace, not the create's.
    in_update = [s for s in spans.ended if s.context.trace_id == update.context.trace_id]
    assert any(s.name == "activity update_tags" for s in in_update), [s.name for s in in_update]
    assert len(spans.named("machine.delete")) == 2
