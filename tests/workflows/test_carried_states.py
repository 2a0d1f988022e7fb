"""The carried state is the one contract between versions (workflows/carried.py): each shape still in use, as an
older release carried it, decodes, upgrades and runs on today's code.

tests/workflows/carried_states/ holds them as azmc 0.2 wrote them: a machine's and a pool's taken from the
continue-as-new events of histories recorded on 0.2, and an offerings memory as 0.2 carried it (no `kind`).
"""

import json
from pathlib import Path
from typing import Any

from models.offerings import Refusal
from models.offerings_memory import MEMORY_KIND, offerings_task_queue, offerings_workflow_id
from models.pool import PoolStatus
from models.status import MachineStatus, Phase
from models.temporal_api import OFFERINGS_ENTRIES_QUERY, OFFERINGS_WORKFLOW_TYPE, POOL_WORKFLOW_TYPE, WORKFLOW_TYPE
from tests.workflows.stack import Stack
from workflows.machine.state import LIFECYCLE_STATE
from workflows.offerings.workflow import MEMORY
from workflows.pool.state import POOL_STATE

STATES = Path(__file__).parent / "carried_states"


def carried(name: str) -> dict[str, Any]:
    return json.loads((STATES / f"{name}.json").read_text())


def test_each_shape_names_its_current_version() -> None:
    assert LIFECYCLE_STATE.kind == "azmc.machine-lifecycle.state/v1"
    assert POOL_STATE.kind == "azmc.machine-pool.state/v2"
    assert MEMORY.kind == MEMORY_KIND == "azmc.offerings.memory/v2"


async def test_a_machine_state_of_0_2_runs_on_and_is_deleted(stack: Stack) -> None:
    state = carried("machine_v1")
    decoded = LIFECYCLE_STATE.decode(state)
    assert (decoded.spec.name, decoded.status.phase, decoded.runs) == ("vm1", Phase.RUNNING, 2)
    handle = await stack.env.client.start_workflow(
        WORKFLOW_TYPE, state, id="machine/azmc-demo/vm1", task_queue=stack.task_queue, result_type=MachineStatus)
    status = await handle.query("status", result_type=MachineStatus)
    assert (status.name, status.inventory.provider_id) == ("vm1", decoded.status.inventory.provider_id) != ("vm1", "")
    await handle.signal("delete", {"reason": "carried from 0.2"})
    assert (await handle.result()).phase == Phase.DELETED
    assert stack.machine_resources("vm1") == []


async def test_a_pool_state_of_0_2_runs_on_and_is_deleted(stack: Stack) -> None:
    state = carried("pool_v1")
    assert state["kind"] == "azmc.machine-pool.state/v1"
    decoded = POOL_STATE.decode(state)
    names = [machine.name for machine in decoded.machines]
    # 0.2 kept no `ready`: its Running machines count as available, so a rollout does not delete them.
    assert [machine.ready for machine in decoded.machines] == [True] * 5
    handle = await stack.env.client.start_workflow(
        POOL_WORKFLOW_TYPE, state, id="pool/azmc-demo/web", task_queue=stack.task_queue, result_type=PoolStatus)
    status = await handle.query("status", result_type=PoolStatus)
    assert [machine.name for machine in status.machines] == names and status.name == "web"
    await handle.signal("delete", {"reason": "carried from 0.2"})
    assert (await handle.result()).machines == []


async def test_an_offerings_memory_of_0_2_without_a_kind_is_upgraded_and_keeps_its_refusals(stack: Stack) -> None:
    state = carried("offerings_memory_v1")
    assert "kind" not in state
    decoded = MEMORY.decode(state)
    assert decoded.kind == MEMORY_KIND and decoded.runs == 4 and len(decoded.refusals) == 1
    memory_id = offerings_workflow_id(state["subscription"], state["location"])
    handle = await stack.env.client.start_workflow(
        OFFERINGS_WORKFLOW_TYPE, state, id=memory_id, task_queue=offerings_task_queue(stack.task_queue))
    refusals = await handle.query(OFFERINGS_ENTRIES_QUERY, result_type=list[Refusal])
    assert [(r.vm_size, r.zone, r.machine) for r in refusals] == [("Standard_D2s_v3", "2", "azmc-demo/vm7")]
    await handle.terminate()
