"""The installation id a worker writes into owner tags: AZMC_INSTALLATION_ID, else the namespace's id."""

from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from cli.processes import temporal_binary
from cli.stack import ONE_PARTITION_FLAGS
from workers.installation import installation_id
from workers.settings import SettingsError, load_settings


@pytest.fixture(autouse=True)
def _no_installation_id_in_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AZMC_INSTALLATION_ID", raising=False)


async def _dev_server_id(db: Path | None) -> str:
    env = await WorkflowEnvironment.start_local(dev_server_extra_args=ONE_PARTITION_FLAGS,
        dev_server_existing_path=temporal_binary(), ui=False,
        dev_server_database_filename=str(db) if db else None)
    async with env:
        return await installation_id(load_settings(), env.client)


async def test_namespace_id_survives_a_restart_and_differs_between_clusters(tmp_path: Path) -> None:
    db = tmp_path / "temporal.db"
    first = await _dev_server_id(db)
    assert first and first == await _dev_server_id(db)  # the same cluster after a restart: the same owner
    assert await _dev_server_id(None) != first  # another cluster: another owner


async def test_explicit_setting_wins_and_is_validated(
        workflow_env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch) -> None:
    client = workflow_env.client
    assert await installation_id(load_settings(installation_id="prod-eu-1"), client) == "prod-eu-1"
    # The time-skipping server answers a namespace id too, the same one on every start.
    assert await installation_id(load_settings(), client)
    monkeypatch.setenv("AZMC_INSTALLATION_ID", "a/b")  # '/' would make the owner tag ambiguous
    with pytest.raises(SettingsError, match="AZMC_INSTALLATION_ID"):
        load_settings()
