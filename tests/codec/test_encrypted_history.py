"""The issue's proof on a real dev server (SQLite file), the real driver and the emulator:
- a whole lifecycle with custom_data leaves no plaintext of the spec's secrets in the database file nor in
  `temporal workflow show -o json`; through the codec server (`--codec-endpoint`) they come back;
- the key is rotated mid-life and the history written under the old key still reads;
- the history (with each activity's audit trail) replays;
- a machine started by a client under a key its worker lacks fails at once naming the key id, before any
  Azure call (a history under way waits for the key instead: test_worker_missing_a_key.py).
"""

import asyncio
import base64
import uuid
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from activities.config import AzureConfig
from activities.driver import AzureDriver
from cli.machines import apply
from cli.stack import ONE_PARTITION_FLAGS
from codec.converter import azmc_data_converter
from codec.keys import new_key_json as key
from codec.keys import parse_keys
from codec.server import codec_app
from models.search_attributes import ALL_KEYS
from models.spec import MachineSpec
from models.status import MachineStatus, Phase
from tests.codec.cli import temporal_cli
from tests.codec.keyed import keyed_client, keyed_worker
from tests.support.emulator import EmulatorHandle
from tests.support.histories import task_failure_messages
from tests.workflows.helpers import spec_dict
from workflows.registry import ALL_WORKFLOWS

OLD = parse_keys(key("k1"), "test")
ROTATED = OLD.merged(parse_keys(key("k2"), "test"))
JOIN_TOKEN = "kubeadm join 10.0.0.1:6443 --token s3cr3t.j01nt0ken0000"
SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAISecretSshKeyOfThisTest azmc@proof"
SECRETS = (JOIN_TOKEN, SSH_KEY.split()[1], "j01nt0ken", "SecretSshKeyOfThisTest")


def _forms(secret: str) -> list[bytes]:
    """A secret as stored bytes might hold it: plain, or base64 at any of the three alignments."""
    raw = secret.encode()
    return [raw] + [base64.b64encode(raw[i:])[4:-4] for i in range(3)]


def _leaks(blob: bytes) -> list[str]:
    return [secret for secret in SECRETS if any(form in blob for form in _forms(secret))]


def _spec(emulator: EmulatorHandle, name: str) -> MachineSpec:
    return MachineSpec.model_validate(spec_dict(name, subnet_id=emulator.subnet_id, ssh_public_key=SSH_KEY,
                                                custom_data=f"#!/bin/sh\n{JOIN_TOKEN}\n", user_data=JOIN_TOKEN))


async def _phase(handle: WorkflowHandle, phase: Phase, tries: int = 300) -> MachineStatus:
    for _ in range(tries):
        status = await handle.query("status", result_type=MachineStatus)
        if status.phase == phase:
            return status
        await asyncio.sleep(0.2)
    raise AssertionError(f"not {phase}: {status.model_dump_json()}")


async def _result(handle: WorkflowHandle, limit_s: float = 120) -> MachineStatus:
    """The run's result, or a failure naming why it did not come (a task failing on the fresh worker, e.g. a replay
    that does not match) instead of the suite's timeout."""
    try:
        return await asyncio.wait_for(handle.result(), timeout=limit_s)
    except TimeoutError:
        raise AssertionError(f"no result within {limit_s:.0f}s; task failures: {await task_failure_messages(handle)}; "
                             f"last events: {await _last_events(handle)}") from None


async def _last_events(handle: WorkflowHandle, count: int = 12) -> list[str]:
    history = await handle.fetch_history()
    return [f"{event.event_id}:{EventType.Name(event.event_type)}" for event in history.events[-count:]]


async def test_lifecycle_leaves_no_plaintext_and_the_codec_server_reads_it(emulator: EmulatorHandle,
                                                                          tmp_path: Path) -> None:
    db = tmp_path / "temporal.db"
    driver = await AzureDriver.open(AzureConfig(installation_id="proof", subscription_id=emulator.subscription_id,
                                                endpoint=emulator.url, emulator_token="proof"))
    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=".venv/bin/temporal", data_converter=azmc_data_converter(OLD),
        search_attributes=list(ALL_KEYS), ui=False,
        dev_server_extra_args=["--db-filename", str(db), *ONE_PARTITION_FLAGS])
    codec = TestServer(codec_app(ROTATED), host="127.0.0.1")
    guarded = TestServer(codec_app(ROTATED, token="t0k3n"), host="127.0.0.1")
    await codec.start_server()
    await guarded.start_server()
    queue = f"proof-{uuid.uuid4()}"
    try:
        async with env:
            # Created and Running under key k1, then the key rotates (k2 encrypts) and the machine is deleted.
            async with keyed_worker(env, OLD, driver, queue):
                applied = await apply(env.client, _spec(emulator, "vm1"), queue)
                await _phase(env.client.get_workflow_handle(applied.workflow_id), Phase.RUNNING)
            rotated = await keyed_client(env, ROTATED)
            handle = rotated.get_workflow_handle(applied.workflow_id, result_type=MachineStatus)
            async with keyed_worker(env, ROTATED, driver, queue):
                await handle.signal("delete", {"reason": "proof"})
                assert (await _result(handle)).phase == Phase.DELETED
            fetched = await handle.fetch_history()
            # The audit trail rides in the results' metadata: the history replays as the workflow ran it.
            replayer = Replayer(workflows=ALL_WORKFLOWS, data_converter=azmc_data_converter(ROTATED))
            await replayer.replay_workflow(fetched)
            history = fetched.to_json().encode()
            # Both key ids travel in the payloads' metadata ("k1", "k2": base64 in the history's JSON).
            assert b'"azE="' in history and b'"azI="' in history

            shown = await temporal_cli(env.client, "workflow", "show", "-w", applied.workflow_id, "-o", "json")
            assert _leaks(shown) == []
            decoded = await temporal_cli(env.client, "workflow", "show", "-w", applied.workflow_id, "-o", "json",
                                         "--codec-endpoint", str(codec.make_url("")).rstrip("/"))
            assert _leaks(decoded) == list(SECRETS)  # the CLI shows decoded payloads' data base64-encoded
            authorized = await temporal_cli(env.client, "workflow", "show", "-w", applied.workflow_id, "-o", "json",
                                            "--codec-endpoint", str(guarded.make_url("")).rstrip("/"),
                                            "--codec-auth", "Bearer t0k3n")
            assert _leaks(authorized) == list(SECRETS)

            # A client starts a machine under k2 while the only worker has k1: it fails at once naming k2.
            requests = emulator.requests()["total"]
            handle = await start_with(rotated, _spec(emulator, "vm2"), queue)
            async with keyed_worker(env, OLD, driver, queue):
                with pytest.raises(WorkflowFailureError) as failed:
                    await handle.result()
            assert isinstance(failed.value.cause, ApplicationError)
            assert failed.value.cause.message.startswith(
                "input: payload encrypted with codec key 'k2', which this process does not have (keys: k1)")
            assert await task_failure_messages(handle) == [] and emulator.requests()["total"] == requests
        stored = b"".join(path.read_bytes() for path in sorted(tmp_path.glob("temporal.db*")))  # noqa: ASYNC240
        assert len(stored) > 100_000 and _leaks(stored) == []
    finally:
        await codec.close()
        await guarded.close()
        await driver.close()


async def start_with(client: Client, spec: MachineSpec, queue: str) -> WorkflowHandle:
    applied = await apply(client, spec, queue)
    return client.get_workflow_handle(applied.workflow_id, result_type=MachineStatus)
