"""A stand-in for a test process, for tests/e2e/test_stacks_end_with_their_parent.py: it starts what tests start
(the session emulator, an end-to-end stack, a time-skipping Temporal), says "ready", and waits to be killed.

`python -m tests.support.stack_process DIR`
"""

import asyncio
import sys
from contextlib import ExitStack
from pathlib import Path

import tests.conftest  # noqa: F401 - as in a test process: the session reaper is started on import
from tests.e2e.stack import running_stack
from tests.support.emulator import EmulatorProcess
from tests.workflows.helpers import time_skipping_env


async def main(state: Path) -> None:
    with ExitStack() as stacks:
        EmulatorProcess("--time-scale", "0", "--seed").start()
        assert stacks.enter_context(running_stack(state)).codec_url  # its codec server too, started when asked
        async with time_skipping_env():
            print("ready", flush=True)
            await asyncio.Event().wait()  # until killed


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
