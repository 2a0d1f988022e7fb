"""A machine's age for `azmc get`: since its workflow was first started, not since its current run began.

A machine continues as new (a deploy moves it to new code, a long history starts afresh), and each run has its own
start time. Its first run's start is the machine's: one more visibility listing finds the runs that continued as new
(most machines have none); only a machine with such runs is described, for the id of its first run
(`first_run_id`), whose start that listing holds (or, when it does not, a describe of that run reads it). A first
run removed by the namespace's retention leaves the oldest start Temporal still knows: the row's own.
"""

import asyncio
from dataclasses import replace
from datetime import datetime

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from cli.machines import MachineRow, visibility_query

_AT_ONCE = 20  # describes side by side


async def _continued_runs(client: Client, pool: str) -> dict[str, dict[str, datetime]]:
    """Workflow id -> {run id: start} of the machines' runs that continued as new."""
    query = f"{visibility_query(open_only=False, pool=pool)} AND ExecutionStatus = 'ContinuedAsNew'"
    runs: dict[str, dict[str, datetime]] = {}
    async for execution in client.list_workflows(query):
        if execution.status == WorkflowExecutionStatus.CONTINUED_AS_NEW and execution.start_time is not None:
            runs.setdefault(execution.id, {})[execution.run_id] = execution.start_time
    return runs


async def _first_start(client: Client, row: MachineRow, continued: dict[str, datetime]) -> datetime | None:
    described = await client.get_workflow_handle(row.workflow_id, run_id=row.run_id or None).describe()
    first = described.raw_description.workflow_execution_info.first_run_id
    if not first or first == described.run_id:
        return row.started
    if first in continued:
        return continued[first]
    try:
        return (await client.get_workflow_handle(row.workflow_id, run_id=first).describe()).start_time
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise
        return row.started  # removed by retention


async def since_first_started(client: Client, rows: list[MachineRow], pool: str = "") -> list[MachineRow]:
    """The rows, each `started` when its machine's workflow was first started."""
    continued = await _continued_runs(client, pool)
    gate = asyncio.Semaphore(_AT_ONCE)

    async def aged(row: MachineRow) -> MachineRow:
        if row.workflow_id not in continued:
            return row  # it never continued as new: its run's start is its first
        async with gate:
            return replace(row, started=await _first_start(client, row, continued[row.workflow_id]))

    return list(await asyncio.gather(*(aged(row) for row in rows)))
