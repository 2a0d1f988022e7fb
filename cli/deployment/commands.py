"""`azmc deployment`: the Worker Deployment's versions, and making one current (docs/upgrades.md).

`promote` is the operator's deploy step: with the new version's workers running beside the old ones, it makes
the new version current, then shows the runs still pinned to older versions until none is left (the fleet sweep
wakes idle ones, a run creating or deleting finishes first), so the old workers can be stopped.
"""

import asyncio
import time
from typing import Annotated

import typer

from cli.errors import settings_or_exit
from cli.options import HELP_MARKUP, Namespace, TemporalAddress

deployment_app = typer.Typer(help="Worker Versioning: the versions of the azmc Worker Deployment.",
                             no_args_is_help=True, rich_markup_mode=HELP_MARKUP)

Deployment = Annotated[str | None, typer.Option("--deployment", help="[env AZMC_DEPLOYMENT_NAME, default azmc]")]
POLL_S = 5.0


@deployment_app.command()
def status(
    temporal_address: TemporalAddress = None, namespace: Namespace = None, deployment: Deployment = None,
) -> None:
    """Each version: current or not, the server's drainage status, the runs still pinned to it."""
    from cli.errors import run_friendly
    from workers.connect import connect
    from workers.deployment import build_id, current_build, describe, unversioned_runs, versions

    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace,
                                deployment_name=deployment)

    async def main() -> None:
        client = await connect(settings)
        name = settings.deployment_name
        current = current_build(await describe(client, name))
        found = await versions(client, name)
        if not found:
            print(f"deployment {name}: no version has polled yet (start `azmc worker`)")
            return
        print(f"deployment {name}: current version {current or 'none'}; this checkout builds {build_id()}")
        for build, drainage, runs in found:
            role = "current" if build == current else drainage or "never current"
            print(f"  {build}  {role:<13} {runs} open runs")
        if unversioned := await unversioned_runs(client):
            print(f"  (unversioned)  {unversioned} open runs begun before Worker Versioning")

    run_friendly(main)


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
    """Make a version current (its workers must be polling), then wait for the older versions to empty."""
    from cli.errors import fail, run_friendly
    from workers.connect import connect
    from workers.deployment import (
        UNVERSIONED_LEFT,
        build_id,
        current_build,
        describe,
        make_current,
        open_runs,
        unversioned_runs,
    )

    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace,
                                deployment_name=deployment)
    target = build or build_id()

    async def main() -> None:
        client = await connect(settings)
        name = settings.deployment_name
        before = current_build(await describe(client, name))
        if before != target and (unversioned := await unversioned_runs(client)):
            fail(f"{unversioned} {UNVERSIONED_LEFT}")
        if before != target:
            await make_current(client, name, target)
        print(f"deployment {name}: {target} is current" + (f" (was {before})" if before and before != target else ""))
        if not wait:
            return
        described = await describe(client, name)
        older = [s.deployment_version.build_id for s in described.worker_deployment_info.version_summaries
                 if s.deployment_version.build_id != target] if described else []
        deadline = time.monotonic() + timeout
        while True:
            left = {old: await open_runs(client, name, old) for old in older}
            if not any(left.values()):
                print("no run is left on an older version: stop their workers" if older else "no older version")
                return
            print("still pinned: " + ", ".join(f"{old} {runs} runs" for old, runs in left.items() if runs), flush=True)
            if time.monotonic() > deadline:
                fail(f"runs are still pinned to older versions after {timeout:.0f} s: keep their workers running; "
                     "`azmc deployment status` shows them")
            await asyncio.sleep(POLL_S)

    run_friendly(main)

