"""Operation-status polling hints: ARM's usual fixed Retry-After, never shrinking towards the operation's end
(a hint of a few milliseconds there makes every client spin)."""

import time

from emulator.arm.operations import USUAL_RETRY_AFTER_S
from tests.emulator.builders import RG, nic_body, vm_body
from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle


def _path(handle: EmulatorHandle, kind: str, name: str) -> str:
    provider = "Microsoft.Network/networkInterfaces" if kind == "nic" else "Microsoft.Compute/virtualMachines"
    return f"/subscriptions/{handle.subscription_id}/resourceGroups/{RG}/providers/{provider}/{name}"


def _hint_s(headers: dict[str, str]) -> float:
    return int(headers["retry-after-ms"]) / 1000


def test_the_hint_stays_the_same_until_the_operation_ends(emulator: EmulatorHandle) -> None:
    # NIC PUT: 2 s of Azure, at time scale 1 (at 0.1 a loaded machine's GET came 50 ms late, after the end).
    emulator.settings(latency_profile="realistic", time_scale=1)
    created = arm(emulator, "PUT", _path(emulator, "nic", "hint-nic"), nic_body(emulator.subnet_id).as_dict())
    first = _hint_s(created.headers)
    assert first == 2.0  # the whole (short) operation: one poll, at its end
    time.sleep(1.5)  # near the end: the hint must not shrink to what is left
    status = arm(emulator, "GET", created.headers["azure-asyncoperation"])
    assert status.body["status"] == "InProgress" and _hint_s(status.headers) == first


def test_a_vm_create_says_azures_usual_ten_seconds(emulator: EmulatorHandle) -> None:
    nic = arm(emulator, "PUT", _path(emulator, "nic", "ten-nic"), nic_body(emulator.subnet_id).as_dict())
    emulator.settings(latency_profile="realistic", time_scale=1)  # a 45 s create, not waited for here
    created = arm(emulator, "PUT", _path(emulator, "vm", "ten-vm"), vm_body("ten-vm", nic.body["id"]).as_dict())
    assert created.status == 201
    assert created.headers["retry-after"] == str(int(USUAL_RETRY_AFTER_S)) == "10"
    status = arm(emulator, "GET", created.headers["azure-asyncoperation"])
    assert status.headers["retry-after"] == "10"
