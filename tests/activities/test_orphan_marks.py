"""mark_orphan writes the tag azmc-orphan-seen only on what the orphan's workflow owns, keeps the first
sighting, rewrites a value that is no time, keeps every other tag, and removes the mark when asked."""

from datetime import UTC, datetime, timedelta

from models.naming import ORPHAN_SEEN_TAG
from models.sweep import OrphanMachine, OrphanMarkInput
from tests.activities.conftest import INSTALLATION
from tests.emulator.builders import RG, nic_body

SEEN = datetime(2026, 5, 1, 12, 30, 15, 999, tzinfo=UTC)


def _tags(emulator, name: str) -> dict[str, str]:
    return next(r["tags"] for r in emulator.resources("networkInterfaces") if r["name"] == name)


def _orphan(*nics: str) -> OrphanMachine:
    return OrphanMachine(name="vm1", resource_group=RG, workflow_id="test", nics=list(nics))


async def test_only_the_orphans_own_resources_are_marked_and_the_first_sighting_counts(
        driver, env, make_spec, sdk, emulator) -> None:
    await env.run(driver.ensure_nic, make_spec("vm1"))  # owner: this installation's workflow "test"
    await sdk.network.network_interfaces.update_tags(RG, "vm1-nic", {"tags": {
        **_tags(emulator, "vm1-nic"), "team": "platform"}})
    for name, tags in {
        "other-nic": {"azmc-machine": "vm1", "azmc-owner": f"{INSTALLATION}/another-workflow"},
        "legacy-nic": {"azmc-machine": "vm1"},  # an azmc from before owner tags
        "stray-nic": {"team": "not-azmc"},
    }.items():
        await (await sdk.network.network_interfaces.begin_create_or_update(
            RG, name, nic_body(emulator.subnet_id, tags))).result()
    everything = _orphan("vm1-nic", "other-nic", "legacy-nic", "stray-nic", "gone-nic")

    assert await env.run(driver.mark_orphan, OrphanMarkInput(orphan=everything, seen_at=SEEN)) == ["NIC vm1-nic"]
    assert _tags(emulator, "vm1-nic")[ORPHAN_SEEN_TAG] == "2026-05-01T12:30:15Z"
    assert _tags(emulator, "vm1-nic")["team"] == "platform"
    for name in ("other-nic", "legacy-nic", "stray-nic"):
        assert ORPHAN_SEEN_TAG not in _tags(emulator, name), name

    later = OrphanMarkInput(orphan=everything, seen_at=SEEN + timedelta(hours=1))
    assert await env.run(driver.mark_orphan, later) == []
    assert _tags(emulator, "vm1-nic")[ORPHAN_SEEN_TAG] == "2026-05-01T12:30:15Z"

    assert await env.run(driver.mark_orphan, OrphanMarkInput(orphan=everything, seen_at=None)) == ["NIC vm1-nic"]
    assert ORPHAN_SEEN_TAG not in _tags(emulator, "vm1-nic") and _tags(emulator, "vm1-nic")["team"] == "platform"


async def test_a_mark_that_is_no_time_is_written_again(driver, env, make_spec, sdk, emulator) -> None:
    await env.run(driver.ensure_nic, make_spec("vm1"))
    await sdk.network.network_interfaces.update_tags(RG, "vm1-nic", {"tags": {
        **_tags(emulator, "vm1-nic"), ORPHAN_SEEN_TAG: "yesterday"}})
    assert await env.run(driver.mark_orphan, OrphanMarkInput(orphan=_orphan("vm1-nic"), seen_at=SEEN)) == [
        "NIC vm1-nic"]
    assert _tags(emulator, "vm1-nic")[ORPHAN_SEEN_TAG] == "2026-05-01T12:30:15Z"
