"""`azmc pool get` and `azmc pool describe` show counts, revisions, each machine and the last operations;
text from the pool (summaries, Azure's messages) is printed as written, never as markup."""

from datetime import UTC, datetime

from rich.console import Console

from cli.pool.lookup import PoolRow, pool_of, pool_ref
from cli.pool.table import pools_table
from cli.render import pool_view
from models.pool import PoolMachine, PoolOperation, PoolStatus
from models.status import Phase

AT = datetime(2026, 1, 1, 12, 0, 5, tzinfo=UTC)


def _text(renderable: object) -> str:
    console = Console(width=200, record=True)
    console.print(renderable)
    return console.export_text()


def _status() -> PoolStatus:
    return PoolStatus(
        name="web", resource_group="azmc-demo", phase="Rolling", replicas=3, current=4, ready=3, updated=1,
        available=2, current_revision="a1b2c", target_revision="d4e5f",
        summary="rolling 1/3 to rev d4e5f, 1 surge machine creating [bold]x[/bold]",
        replacements_held="1 Failed machine waits: max_replacements 1 reached",
        machines=[PoolMachine(name="web-k2j9x", revision="d4e5f", phase=Phase.CREATING),
                  PoolMachine(name="web-q8w1e", revision="a1b2c", phase=Phase.FAILED, preserved=True),
                  PoolMachine(name="web-z0z0z", revision="a1b2c", phase=Phase.RUNNING, deleting=True)],
        recent_operations=[PoolOperation(kind="roll", description="created web-k2j9x (surge)", at=AT)],
    )


def test_pool_table_reads_desired_ready_updated_available_and_the_revisions() -> None:
    rows = [PoolRow("pool/azmc-demo/web", "azmc-demo", "web", _status()),
            PoolRow("pool/azmc-demo/old", "azmc-demo", "old", None, note="Deleted")]
    text = _text(pools_table(rows))
    assert "DESIRED/READY/UPDATED/AVAILABLE" in text
    web = next(line for line in text.splitlines() if line.strip().startswith("web"))
    assert "3/3/1/2" in web and "a1b2c -> d4e5f" in web and "Rolling" in web
    assert "Deleted" in next(line for line in text.splitlines() if line.strip().startswith("old"))


def test_pool_describe_lists_machines_with_preserved_and_the_last_operations() -> None:
    text = _text(pool_view(_status(), "pool/azmc-demo/web"))
    assert "desired 3, current 4, ready 3, updated 1, available 2" in text
    assert "current a1b2c, target d4e5f" in text
    assert "1 surge machine creating [bold]x[/bold]" in text  # as written
    assert "max_replacements 1 reached" in text
    preserved = next(line for line in text.splitlines() if "web-q8w1e" in line)
    assert "Failed" in preserved and "preserved" in preserved
    assert "deleting" in next(line for line in text.splitlines() if "web-z0z0z" in line)
    assert "12:00:05" in text and "created web-k2j9x (surge)" in text


def test_pool_describe_says_how_many_wait_for_quota_and_why() -> None:
    why = "standardDSv5Family 8 of 8 vCPUs in use (Standard_D2s_v5 needs 2)"
    status = PoolStatus(
        name="web", resource_group="azmc-demo", replicas=5, current=5, ready=4, quota_waiting=1,
        quota_held=f"1 of 5 wait for quota: {why}",
        machines=[PoolMachine(name="web-k2j9x", revision="d4e5f", phase=Phase.PENDING, waiting_for_quota=why)])
    text = _text(pool_view(status, "pool/azmc-demo/web"))
    assert f"1 of 5 wait for quota: {why}" in text
    assert "waiting for quota" in next(line for line in text.splitlines() if "web-k2j9x" in line)


def test_pool_names_are_checked_before_any_call() -> None:
    assert pool_ref("web", "azmc-demo") == "pool/azmc-demo/web"
    assert pool_ref("azmc-demo/web") == pool_ref("pool/azmc-demo/web") == "pool/azmc-demo/web"
    assert pool_ref("web") is None and pool_of("machine/azmc-demo/web") is None
    for hostile in ("web' OR 1=1", "a/b/c/d", "web pool"):
        try:
            pool_ref(hostile)
        except LookupError as error:
            assert "not" in str(error)
        else:
            raise AssertionError(f"{hostile!r} was accepted")
