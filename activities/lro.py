"""How the driver waits for ARM's long-running operations: at Azure's pace, and without a GET it does not need.

azure-core's ARM poller polls once right after the initial response, whatever its Retry-After says,
then waits each Retry-After (our `polling_interval` only when ARM gives none). Operation-status polls
are ARM reads, paid per machine by a churning fleet: `RetryAfterPolling` waits the hint before the
first poll too, so a VM create that says "Retry-After: 10" is polled at 10 s, 20 s ... and never at 0.

An initial answer that already says the resource is provisioned (200/201 with provisioningState
Succeeded: the network RP answers a NIC PUT so) ends the wait at once: no poll, no final GET, the
answer is that body. Azure-AsyncOperation is still there, but it can only confirm what ARM said.

`final_get=False` skips the GET of the resource that the SDK sends after a PUT or PATCH succeeded:
for writes whose caller needs nothing the final state would add (a NIC's id, a tag PATCH), the
answer is the initial response's body (the resource as ARM accepted the write; its provisioningState
is the one it had then), or None for a 202 without a body.

A VM's create, delete and power operations (`BoardPolling`) are not polled at all while the worker's shared
status reads can answer them: one list of every VM's state serves every machine waiting.
"""

from typing import Any

from azure.core.exceptions import DecodeError
from azure.core.polling.base_polling import OperationFailed, _failed, _raise_if_bad_http_status_and_method
from azure.mgmt.core.polling.arm_polling import BodyContentPolling
from azure.mgmt.core.polling.async_arm_polling import AsyncARMPolling

from activities.reading.vm_statuses import SteppedAside, Verdict, VmStatusBoard, Watch


def provisioned(response: Any) -> bool:
    """The initial answer is the resource, provisioned: 200/201 with properties.provisioningState Succeeded."""
    http = response.http_response
    # A poller resumed from a continuation token holds a response without a body: never provisioned.
    if http.status_code not in (200, 201) or not hasattr(http, "json"):
        return False
    try:
        return BodyContentPolling._get_provisioning_state(http) == "Succeeded"  # azure-mgmt-core's own reading
    except DecodeError:
        return False


class RetryAfterPolling(AsyncARMPolling):
    def __init__(self, interval_s: float, *, final_get: bool = True, **kwargs: Any) -> None:
        super().__init__(interval_s, **kwargs)
        self._final_get = final_get

    def initialize(self, client: Any, initial_response: Any, deserialization_callback: Any) -> None:
        super().initialize(client, initial_response, deserialization_callback)
        if not self.finished() and provisioned(initial_response):
            # Nothing to poll and nothing to GET: resource() parses the initial answer.
            self._status, self._final_get = "Succeeded", False

    async def _poll(self) -> None:
        # azure-core's own loop, but with the delay BEFORE every status request (its first one has none).
        while not self.finished():
            await self._delay()
            await self.update_status()
        if _failed(self.status()):
            raise OperationFailed("Operation failed or canceled")
        if not self._final_get:
            return
        final_get_url = self._operation.get_final_get_url(self._pipeline_response)
        if final_get_url:
            self._pipeline_response = await self.request_status(final_get_url)
            _raise_if_bad_http_status_and_method(self._pipeline_response.http_response)

    def resource(self) -> Any:
        if self._final_get or self._initial_response is None:
            return super().resource()
        return self._parse_resource(self._initial_response)  # None for a 202 without a body


class BoardPolling(RetryAfterPolling):
    """A VM operation waited for on the worker's shared status reads (activities/reading/vm_statuses.py) instead of
    its own polls: the board's list ends the wait when the VM's states say the operation reached its goal; where
    they cannot tell (Failed, or idle elsewhere), the operation is read once for Azure's own word, and polled on as
    before if it still runs. So is every operation when the board steps aside."""

    def __init__(self, interval_s: float, board: VmStatusBoard, vm_id: str, watch: Watch, **kwargs: Any) -> None:
        super().__init__(interval_s, **kwargs)
        self._board, self._vm_id, self._watch = board, vm_id, watch

    async def _poll(self) -> None:
        if not self.finished():
            try:
                verdict, _ = await self._board.wait(self._vm_id, self._watch, self._extract_delay())
            except SteppedAside:
                verdict = Verdict.ASK
            if verdict is Verdict.DONE:
                self._status = "Succeeded"
            else:
                await self.update_status()
        await super()._poll()
