"""A compensation stack: undo steps registered before each creation step, run in reverse on failure."""

from collections.abc import Awaitable, Callable

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.status import OperationState, Stage

from workflows.machine.bookkeeping import Machine
from workflows.machine.retrying import until_done


class Compensations:
    def __init__(self, machine: Machine) -> None:
        self._machine = machine
        self._steps: list[tuple[str, Callable[[], Awaitable[object]]]] = []

    def register(self, description: str, undo: Callable[[], Awaitable[object]]) -> None:
        """Call BEFORE the step runs: a step that fails half-way (or times out) may still leave something."""
        self._steps.append((description, undo))

    def forget(self) -> None:
        """The creation succeeded: nothing to undo."""
        self._steps.clear()

    async def unwind(self) -> None:
        """Undo in reverse order. Each undo retries until it succeeds; none is ever dropped."""
        while self._steps:
            description, undo = self._steps[-1]
            self._machine.operation(Stage.COMPENSATE, OperationState.PROCESSING, description)
            await until_done(self._machine, Stage.COMPENSATE, description, undo)
            self._machine.operation(Stage.COMPENSATE, OperationState.SUCCESSFUL, description)
            # Popped only once done, so a continue-as-new or a crash mid-unwind never loses it.
            self._steps.pop()
