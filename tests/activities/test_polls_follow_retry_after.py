"""The driver polls long-running operations at the pace ARM asks for: it waits each Retry-After, the
first one included (azure-core alone polls once at once), so a lifecycle's polls stay few."""

import math
import time
from collections.abc import Callable
from typing import Any

from activities.driver import AzureDriver
from emulator.arm.latency import duration
from emulator.arm.operations import USUAL_RETRY_AFTER_S
from models.spec import MachineSpec

SCALE = 0.02  # Azure's durations and hints at 1/50


async def test_a_vm_create_is_read_once_per_retry_after_and_never_at_once(
    emulator: Any, driver: AzureDriver, create_machine: Callable[..., Any], make_spec: Callable[..., MachineSpec],
) -> None:
    emulator.settings(latency_profile="realistic", time_scale=SCALE)
    spec = make_spec("paced-vm", data_disks=[])
    driver.reset_request_counts()
    started = time.monotonic()
    await create_machine(spec)
    took = time.monotonic() - started
    # The NIC PUT's answer is the NIC, provisioned; the VM's create is waited for on the shared status reads
    # (tests/activities/test_shared_status_reads.py), one a Retry-After; its OS disk is not tagged: no PATCH.
    counts = driver.request_counts()
    vm_polls = math.ceil(duration("realistic", "virtualMachines.put") / USUAL_RETRY_AFTER_S)  # 10 s, 20 s ... 50 s
    assert counts.get("operations.poll", 0) == 0 and 1 <= counts["virtualMachines.list"] < vm_polls
    # Waiting the hint before the first poll does not make the create slower than Azure's own pace.
    assert took < (2 + vm_polls * USUAL_RETRY_AFTER_S + 2) * SCALE + 1.0


async def test_a_nic_the_put_answers_provisioned_is_neither_polled_nor_read_again(
    emulator: Any, driver: AzureDriver, env: Any, make_spec: Callable[..., MachineSpec],
) -> None:
    """The network RP's PUT answer is the NIC, Succeeded: its operation would only confirm it (one ARM read)."""
    emulator.settings(latency_profile="realistic", time_scale=SCALE)  # the operation itself runs 2 s * SCALE
    spec = make_spec("answered-nic", data_disks=[])
    driver.reset_request_counts()
    nic_id = await env.run(driver.ensure_nic, spec)
    assert driver.request_counts() == {"networkInterfaces.get": 1, "networkInterfaces.put": 1}
    assert nic_id.endswith("/networkInterfaces/answered-nic-nic")
    [nic] = [r for r in emulator.resources("networkInterfaces") if r["id"].lower() == nic_id.lower()]
    assert nic["provisioningState"] == "Succeeded"
