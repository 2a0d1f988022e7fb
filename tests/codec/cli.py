"""Run the `temporal` CLI against a test's server; its stdout as bytes (searched for secrets as bytes)."""

import asyncio

from temporalio.client import Client

TEMPORAL_CLI = ".venv/bin/temporal"


async def temporal_cli(client: Client, *args: str) -> bytes:
    process = await asyncio.create_subprocess_exec(
        TEMPORAL_CLI, *args, "--address", client.service_client.config.target_host, "--namespace", client.namespace,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode == 0, err.decode()
    return out
