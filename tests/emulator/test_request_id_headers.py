"""Every answer carries Azure's x-ms-request-id (new each time) and x-ms-correlation-request-id (the caller's,
else new), errors included: the ids an audit trail and an Azure support ticket need."""

import uuid

from tests.support.arm_http import arm
from tests.support.emulator import EmulatorHandle


def test_request_and_correlation_ids(emulator: EmulatorHandle) -> None:
    group = f"/subscriptions/{emulator.subscription_id}/resourceGroups/azmc-demo"
    path = f"{group}/providers/Microsoft.Compute/virtualMachines"
    first, second = arm(emulator, "GET", path), arm(emulator, "GET", f"{path}/nope")
    assert first.status == 200 and second.status == 404
    ids = [uuid.UUID(answer.headers["x-ms-request-id"]) for answer in (first, second)]
    assert ids[0] != ids[1]
    assert uuid.UUID(second.headers["x-ms-correlation-request-id"])
    unauthorized = arm(emulator, "GET", path, token=None)
    assert unauthorized.status == 401 and unauthorized.headers["x-ms-request-id"]
