"""Issue 37: the ARM budget share counted dead workers. Two `azmc worker` processes share the budgets; one is
SIGKILLed, and the survivor takes the whole budget again once the dead one's last poll is a minute old, not after the
five minutes the server keeps listing it (workers/replicas.py, workers/live_workers.py)."""

from pathlib import Path

from tests.e2e.stack import Stack, WorkerProcess, wait_until

SHARED_BY_TWO = "ARM budgets shared by 2 worker(s)"
ALONE = "ARM budgets shared by 1 worker(s)"


def test_a_killed_worker_leaves_the_budget_share(stack: Stack, tmp_path: Path) -> None:
    survivor_log = stack.worker.log_path
    second = WorkerProcess(stack.address, stack.emulator.url, tmp_path / "second.log")
    second.start()
    wait_until(lambda: SHARED_BY_TWO in survivor_log.read_text(), 60, "the survivor counting two workers")

    second.kill()
    counted_two_at = survivor_log.read_text().rindex(SHARED_BY_TWO)
    # The server lists the dead worker's polls for five minutes: the count drops well before that.
    wait_until(lambda: ALONE in survivor_log.read_text()[counted_two_at:], 150, "the survivor counting itself alone")
