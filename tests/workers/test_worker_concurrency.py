"""A worker keeps one workflow-task poll for new machines, whatever AZMC_WORKFLOW_TASK_POLLS says, so a burst of
new machines never takes the slots that machines it already runs need (bench/scale.py measured why)."""

import pytest

from workers.settings import WORKFLOW_TASK_POLLS, SettingsError, load_settings
from workers.worker import concurrency


def polls_for_new_machines(options: dict[str, object]) -> int:
    """How sdk-core splits the polls: max(1, floor(polls x ratio)) on the task queue, the rest on the sticky one."""
    return max(1, int(float(options["max_concurrent_workflow_task_polls"])
                      * float(options["nonsticky_to_sticky_poll_ratio"])))


@pytest.mark.parametrize("polls", [2, 3, 7, WORKFLOW_TASK_POLLS, 64])
def test_one_poll_takes_new_machines_the_others_the_worker_s_own(monkeypatch: pytest.MonkeyPatch, polls: int):
    monkeypatch.setenv("AZMC_WORKFLOW_TASK_POLLS", str(polls))
    options = concurrency(load_settings())
    assert options["max_concurrent_workflow_task_polls"] == polls
    assert polls_for_new_machines(options) == 1


def test_the_default_is_ten_polls_nine_of_them_sticky(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("AZMC_WORKFLOW_TASK_POLLS", raising=False)
    options = concurrency(load_settings())
    assert options["max_concurrent_workflow_task_polls"] == 10
    assert options["max_cached_workflows"] == 1000 and options["max_concurrent_workflow_tasks"] == 10


def test_fewer_than_two_polls_is_refused_by_name(monkeypatch: pytest.MonkeyPatch):
    """One poll could not serve both queues: the worker would wait on one while the other fills."""
    monkeypatch.setenv("AZMC_WORKFLOW_TASK_POLLS", "1")
    with pytest.raises(SettingsError, match="AZMC_WORKFLOW_TASK_POLLS"):
        load_settings()
