"""`azmc pool get`, `azmc pool describe` and `azmc describe` answer while the workflow task of the pool or machine
waits (a busy worker, here none): `pool get` reads what the pool keeps in its memo, which the server answers without
the pool's workflow task that a `status` query waits for (issue 37: 16.7 s during a mass delete); the describes ask
the workflow for a second, then answer from the server, and say so."""

import asyncio
import io
import uuid
from typing import Any

import pytest
from rich.console import Console
from temporalio.client import Client, Interceptor, OutboundInterceptor, QueryWorkflowInput
from temporalio.testing import WorkflowEnvironment
from typer.testing import CliRunner, Result

from cli.commands import app
from cli.pool.commands import wait_pool_deleted
from cli.pool.lookup import list_pools
from cli.pool.table import counts
from models.naming import workflow_id
from models.temporal_api import RECONCILE_SIGNAL, UPGRADE_SIGNAL
from tests.support.driver import emulator_driver
from tests.support.emulator import EmulatorHandle
from tests.workflows.conftest import INSTALLATION, TOKEN
from tests.workflows.helpers import REAL_TIME, RESOURCE_GROUP, TEST_CODEC_KEYS_JSON
from tests.workflows.pools import pool_dict, settled, start_pool, wait_pool, worker_of

pytestmark = pytest.mark.e2e  # a dev server: visibility listings


class _Queries(Interceptor):
    """Counts the queries a client sends."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def intercept_client(self, next: OutboundInterceptor) -> OutboundInterceptor:
        return _Counting(next, self.sent)


class _Counting(OutboundInterceptor):
    def __init__(self, next: OutboundInterceptor, sent: list[str]) -> None:
        super().__init__(next)
        self._sent = sent

    async def query_workflow(self, input: QueryWorkflowInput) -> Any:
        self._sent.append(f"{input.id} {input.query}")
        return await super().query_workflow(input)


async def _azmc(env: WorkflowEnvironment, *argv: str) -> Result:
    address = env.client.service_client.config.target_host
    return await asyncio.to_thread(CliRunner().invoke, app, [*argv, "--temporal-address", address],
                                   env={"AZMC_CODEC_KEYS": TEST_CODEC_KEYS_JSON})


async def test_a_pools_status_is_answered_while_its_workflow_task_waits(dev_env: WorkflowEnvironment,
                                                                        emulator: EmulatorHandle) -> None:
    task_queue, client = f"azmc-pool-{uuid.uuid4()}", dev_env.client
    async with emulator_driver(emulator, INSTALLATION, TOKEN) as driver:
        async with worker_of(client, driver, task_queue):
            handle = await start_pool(client, task_queue, pool_dict(emulator.subnet_id, 2))
            machines = sorted(m.name for m in (await wait_pool(dev_env, handle, settled(2), **REAL_TIME)).machines)
        # No worker: the workflow task this signal asks for waits, and every query to the pool waits behind it.
        await handle.signal(UPGRADE_SIGNAL)

        listed = await _azmc(dev_env, "pool", "get")
        assert listed.exit_code == 0, listed.output
        row = next(line.split() for line in listed.stdout.splitlines() if line.strip().startswith("web "))
        assert row[2] == "2/2/2/2" and row[4] == "Stable", row  # NAME, RESOURCE GROUP, counts, REVISION, PHASE

        described = await _azmc(dev_env, "pool", "describe", "web", "-g", RESOURCE_GROUP)
        assert described.exit_code == 0, described.output
        said = " ".join(described.stdout.split())
        assert "Answered by the server: the pool did not answer within 1 s" in said, said
        assert "desired 2, current 2, ready 2, updated 2, available 2" in said, said
        assert all(f"{name} Running" in said for name in machines), said

        await client.get_workflow_handle(workflow_id(RESOURCE_GROUP, machines[0])).signal(RECONCILE_SIGNAL)
        machine = await _azmc(dev_env, "describe", machines[0], "-g", RESOURCE_GROUP)
        assert machine.exit_code == 0, machine.output
        said = " ".join(machine.stdout.split())
        assert "Answered by the server: the machine did not answer within 1 s" in said and "Phase Running" in said, said

        # What they ask: `azmc pool get` and `azmc pool delete --wait` send no query at all, so they never take the
        # one place the server holds for a busy pool's queries (another query would be refused, and retried).
        queries = _Queries()
        counted = Client(**{**client.config(), "interceptors": [queries]})
        (row,) = [row for row in await list_pools(counted) if row.name == "web"]
        assert row.status is not None and counts(row.status) == "2/2/2/2"
        async with worker_of(client, driver, task_queue):
            await handle.signal("delete")
            await wait_pool_deleted(counted, handle.id, Console(file=io.StringIO()))
        assert queries.sent == []
