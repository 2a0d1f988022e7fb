"""The test tiers (docs/testing.md, "Tiers"), marked from where a test lives.

- `fast`: pure code, the emulator, history replays: no Temporal server, no process of azmc's own
  (`make test-fast`, under a minute on 2 cores).
- `workflow`: scenarios on a time-skipping Temporal server (tests/conftest.py, `workflow_env`).
- `e2e`: a Temporal dev server, `azmc` processes, a browser.

A test module may set its tier itself (`pytestmark = pytest.mark.e2e`); otherwise its file's entry below
decides, else its folder's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

FAST, WORKFLOW, E2E = "fast", "workflow", "e2e"
TIERS = {
    FAST: "pure code, the emulator, history replays (make test-fast)",
    WORKFLOW: "scenarios on a time-skipping Temporal server",
    E2E: "a Temporal dev server, azmc processes or a browser",
}

# By folder under tests/.
FOLDERS = {
    "models": FAST, "emulator": FAST, "activities": FAST, "codec": FAST, "cli": FAST, "bench": FAST, "deploy": FAST,
    "workflows": WORKFLOW, "workers": WORKFLOW,
    "e2e": E2E,
}
# Files whose tier is not their folder's, by path under tests/.
FILES = {
    "test_docs.py": FAST,
    "test_compose.py": FAST,
    "test_layout.py": FAST,
    "test_packaging.py": FAST,
    "test_type_ignores.py": FAST,
    "test_deterministic_code.py": FAST,
    "workflows/test_replay_recorded_histories.py": FAST,
    "activities/test_private_offerings_memory.py": WORKFLOW,
    "activities/test_worker_registration.py": WORKFLOW,
    "cli/test_cli_offerings.py": WORKFLOW,
    "activities/test_offerings_burst.py": E2E,  # a dev server
    "bench/test_repair_time.py": E2E,  # a dev server, the emulator and an azmc worker
    "bench/test_scale_out.py": E2E,  # a dev server, two emulators, azmc workers
    "cli/test_cli_describe_requests.py": E2E,  # a dev server, the CLI as a process
    "cli/test_cli_get_age.py": E2E,  # a dev server, the emulator and an azmc worker
    "cli/test_cli_hostile_strings.py": E2E,  # an end-to-end stack
    "cli/test_cli_pool_commands.py": E2E,  # an end-to-end stack
    "cli/test_cli_temporal_tls.py": E2E,  # a dev server behind TLS
    "codec/test_encrypted_history.py": E2E,  # a dev server
    "codec/test_worker_missing_a_key.py": E2E,  # a dev server and the emulator
    "workers/test_installation_id.py": E2E,  # a dev server restarted on its database
    "workers/test_no_secret_in_worker_output.py": E2E,  # a worker process
    "workflows/test_operator_cli.py": E2E,  # a dev server
    "workflows/test_fleet_sweep_resource_group.py": E2E,  # a dev server (visibility queries)
    "workflows/test_pool_preserve_timeout.py": E2E,  # a dev server (a timer cancelled as it fires)
    "workflows/test_paced_writes.py": E2E,  # a dev server (the time-skipping server does not pace task queues)
}


def tier_of(path: Path, tests_root: Path) -> str:
    relative = path.relative_to(tests_root).as_posix()
    if relative in FILES:
        return FILES[relative]
    if relative.endswith("_unit.py"):  # one function's cases, whatever the folder
        return FAST
    return FOLDERS.get(relative.split("/")[0], E2E)


def register(config: pytest.Config) -> None:
    for name, description in TIERS.items():
        config.addinivalue_line("markers", f"{name}: {description}")


def mark_tiers(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests_root = Path(__file__).resolve().parent.parent
    for item in items:
        if any(item.get_closest_marker(name) for name in TIERS):
            continue
        item.add_marker(getattr(pytest.mark, tier_of(Path(item.path), tests_root)))


# Fast files that wait on purpose (the emulator's 6 s budget windows) or start processes, 10 to 40 s each where the
# rest take a second: first in their tier, or they end `make test` and `make test-fast` alone while the other
# processes have nothing left (by path under tests/).
LONG_FAST_FILES = (
    "emulator/test_limits_compute.py", "activities/test_idempotency.py", "cli/test_cli_duration_bounds.py",
    "test_packaging.py", "emulator/test_limits_network_arm.py", "activities/test_arm_pace.py",
    "activities/test_shared_status_reads.py",
)


def slowest_tier_first(items: list[pytest.Item]) -> None:
    """End-to-end files first, then workflow, then fast (its long files first): xdist hands files out in this order
    (addopts has --no-loadscope-reorder), so the long ones start at once and the many short ones fill the gaps after."""
    order = {tier: rank for rank, tier in enumerate((E2E, WORKFLOW, FAST))}
    tests_root = Path(__file__).resolve().parent.parent

    def rank(item: pytest.Item) -> tuple[int, int]:
        tier = min((order[name] for name in TIERS if item.get_closest_marker(name)), default=0)
        relative = Path(item.path).relative_to(tests_root).as_posix()
        return tier, LONG_FAST_FILES.index(relative) if relative in LONG_FAST_FILES else len(LONG_FAST_FILES)

    items.sort(key=rank)
