"""`azmc deployment`: the Worker Deployment's versions, and making one current (docs/upgrades.md).

`promote` is the operator's deploy step: with the new version's workers running beside the old ones, it makes
the new version current, then shows the runs still pinned to older versions until none is left (the fleet sweep
wakes idle ones, a run creating or deleting finishes first), so the old workers can be stopped.
"""

import asyncio
import time
from typing import TYPE_CHECKING, Annotated

import typer

from cli.errors import settings_or_exit
from cli.options import HELP_MARKUP, Namespace, TemporalAddress, setting_option

if TYPE_CHECKING:
    from temporalio.client import Client

deployment_app = typer.Typer(help="Worker Versioning: the versions of the azmc Worker Deployment.",
                             no_args_is_help=True, rich_markup_mode=HELP_MARKUP)

Deployment = Annotated[str | None, setting_option("deployment_name", "the Worker Deployment")]
POLL_S = 5.0


@deployment_app.command()
def status(
    temporal_address: TemporalAddress = None, namespace: Namespace = None, deployment: Deployment = None,
) -> None:
    """Each version: current or not, the server's drainage status, the runs pinned to it, the workers polling it;
    and which version serves the task queues, when another deployment's does."""
    from cli.errors import run_friendly
    from workers.connect import connect
    from workers.deployment import (
        build_id,
        current_build,
        describe,
        named,
        runs_on_other_deployments,
        served_by_others,
        unversioned_runs,
        versions,
    )

    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace,
                                deployment_name=deployment)

    async def main() -> None:
        client = await connect(settings)
        name = settings.deployment_name
        current = current_build(await describe(client, name))
        found = await versions(client, name)
        others = await served_by_others(client, settings.task_queue, name)
        polling = await workers_by_version(client, settings.task_queue)
        if not found and not others:
            print(f"deployment {name}: no version has polled yet (start `azmc worker`)")
            return
        print(f"deployment {name}: current version {current or 'none'}; this checkout builds {build_id()}")
        for queue, version in others.items():
            print(f"  task queue {queue}: served by {named(version)}, of Worker Deployment {version.deployment_name}, "
                  f"not {name}: `azmc deployment promote` takes it back")
        for build, drainage, runs in found:
            role = "current" if build == current else drainage or "never current"
            print(f"  {build}  {role:<13} {runs} open runs, {polling.get(f'{name}:{build}', 0)} workers polling")
        for other, runs in (await runs_on_other_deployments(client, name)).items():
            print(f"  {other}  of another deployment  {runs} open runs, {polling.get(other, 0)} workers polling")
        if unversioned := await unversioned_runs(client):
            print(f"  (unversioned)  {unversioned} open runs begun before Worker Versioning")

    run_friendly(main)


async def workers_by_version(client: "Client", task_queue: str) -> dict[str, int]:
    """How many live workers poll the task queue, by `deployment:build`."""
    from workers.live_workers import live_workers

    counted: dict[str, int] = {}
    for worker in await live_workers(client, task_queue):
        counted[worker.version_name] = counted.get(worker.version_name, 0) + 1
    return counted


@deployment_app.command()
def promote(
    build: Annotated[str | None, typer.Argument(help="the build id to make current [default: this checkout's]")]
    = None,
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
    deployment: Deployment = None,
    wait: Annotated[bool, typer.Option("--wait/--no-wait", help="wait until no run is left on an older version")]
    = True,
    timeout: Annotated[float, typer.Option(help="seconds to wait for the older versions to empty")] = 7200.0,
) -> None:
    """Make a version current (its workers must be polling) and the one serving the task queues, taking them back
    from another deployment that serves them; then wait for the older versions to empty."""
    from cli.errors import fail, run_friendly
    from workers.connect import connect
    from workers.deployment import (
        UNVERSIONED_LEFT,
        build_id,
        current_build,
        describe,
        make_current,
        named,
        open_runs,
        release,
        runs_on_other_deployments,
        served_by_others,
        unversioned_runs,
    )

    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace,
                                deployment_name=deployment)
    target = build or build_id()

    async def main() -> None:
        client = await connect(settings)
        name = settings.deployment_name
        before = current_build(await describe(client, name))
        others = await served_by_others(client, settings.task_queue, name)
        if (before != target or others) and (unversioned := await unversioned_runs(client)):
            fail(f"{unversioned} {UNVERSIONED_LEFT}")
        if before != target:
            await make_current(client, name, target)
        if others:
            await release(client, others)
            for queue, version in others.items():
                print(f"task queue {queue} was served by {named(version)}: Worker Deployment {version.deployment_name} "
                      "no longer has a current version (its pinned runs stay on it)")
        print(f"deployment {name}: {target} is current" + (f" (was {before})" if before and before != target else ""))
        if not wait:
            return
        described = await describe(client, name)
        summaries = described.worker_deployment_info.version_summaries if described else []
        older: list[tuple[str, ...]] = [(name, s.deployment_version.build_id) for s in summaries
                                        if s.deployment_version.build_id != target]
        older += [tuple(version.split(":", 1)) for version in await runs_on_other_deployments(client, name)]
        deadline = time.monotonic() + timeout
        while True:
            left = {(d, b): await open_runs(client, d, b) for d, b in older}
            if not any(left.values()):
                print("no run is left on an older version: stop their workers" if older else "no older version")
                return
            polling = await workers_by_version(client, settings.task_queue)
            print("still pinned: " + ", ".join(  # this deployment's builds by their id, another's by its name too
                f"{b if d == name else f'{d}:{b}'} {runs} runs"
                + ("" if polling.get(f"{d}:{b}") else " (no worker polls it: start one)")
                for (d, b), runs in left.items() if runs), flush=True)
            if time.monotonic() > deadline:
                fail(f"runs are still pinned to older versions after {timeout:.0f} s: keep their workers running; "
                     "`azmc deployment status` shows them")
            await asyncio.sleep(POLL_S)

    run_friendly(main)
