"""Pinned runs that move to the current Worker Deployment Version by continuing as new (docs/upgrades.md).

Every workflow type is pinned, by the versioned worker's default (workers/deployment.py; a type naming its own
behavior would be refused on an unversioned worker): a run meets only the code it started on, so a change of
workflow code needs no patch. A long-lived run (a machine, a pool, the offerings memory) asks `upgrade_due()` at
its safe points and, when a newer version is current, continues as new there; the next run starts on that
version with the carried state, the one contract between versions. `upgrade` wakes an idle run to ask (the
fleet sweep sends it).
"""

from typing import Any, NoReturn

from temporalio import workflow


def upgrade_due() -> bool:
    """True once the deployment's current (or ramping) version is not the one this run is pinned to; the server
    sets it on the run's next workflow task, and it is recorded in history, so a replay decides the same."""
    return workflow.info().is_target_worker_deployment_version_changed()


def continue_as_new(state: Any, **options: Any) -> NoReturn:
    """Continue as new on the current version (a run on it already stays there), carrying `state`."""
    workflow.continue_as_new(
        state, initial_versioning_behavior=workflow.ContinueAsNewVersioningBehavior.AUTO_UPGRADE, **options)
