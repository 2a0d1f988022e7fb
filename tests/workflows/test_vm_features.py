"""Identity, gallery images, marketplace plans and boot diagnostics of a machine: created and visible, refused where
Azure refuses (the machine says why), and changed in place by update_spec where Azure allows."""

from datetime import timedelta
from typing import Any

from temporalio.client import WorkflowHandle

from emulator.seed import SEED_PLAN, seed_gallery_image_version_id, seed_identity_id
from models.status import MachineStatus, Phase
from tests.workflows.helpers import in_phase, spec_dict, start_machine, status_of, wait_for
from tests.workflows.stack import Stack
from tests.workflows.test_update_spec import refused, update

BOTH = {"type": "SystemAssigned, UserAssigned", "user_assigned_identities": [seed_identity_id()]}


def vm_seen(stack: Stack, name: str = "vm1") -> dict[str, Any]:
    (vm,) = [r for r in stack.emulator.resources("virtualMachines") if r["name"] == name]
    return vm


async def settled(stack: Stack, name: str = "vm1", **fields: Any) -> tuple[WorkflowHandle, MachineStatus]:
    handle = await start_machine(stack.env.client, stack.task_queue,
                                 spec_dict(name=name, subnet_id=stack.emulator.subnet_id, **fields))
    # Both phases last: a read every 30 virtual seconds, not every second of a failing creation's 20 minutes.
    return handle, await wait_for(stack.env, handle, in_phase(Phase.RUNNING, Phase.FAILED), step=timedelta(seconds=30))


def agreement_puts(stack: Stack) -> int:
    return stack.emulator.requests()["by_operation"].get("marketplaceAgreements.put", 0)


async def test_identity_is_created_and_shown(stack: Stack) -> None:
    _, status = await settled(stack, identity=BOTH)
    assert status.phase == Phase.RUNNING
    identity = vm_seen(stack)["identity"]
    assert identity["type"] == "SystemAssigned, UserAssigned" and identity["principalId"]
    assert [key.lower() for key in identity["userAssignedIdentities"]] == [seed_identity_id().lower()]
    assert status.inventory.identity_principal_id == identity["principalId"]


async def test_an_identity_that_does_not_exist_fails_the_machine_naming_it(stack: Stack) -> None:
    missing = seed_identity_id("nobody")
    _, status = await settled(stack, identity={"type": "UserAssigned", "user_assigned_identities": [missing]})
    assert status.phase == Phase.FAILED
    assert "FailedIdentityOperation" in status.last_error and missing in status.last_error
    assert stack.emulator.resources("virtualMachines") == []
    # Only a person fixes it (creates the identity, then `reconcile`): tried again after OPERATOR_BACKOFF, not
    # every few seconds until the creation timeout (20 minutes: 2 attempts, not 11).
    assert status.attempts == 2


async def test_a_gallery_image_version_is_used(stack: Stack) -> None:
    _, status = await settled(stack, image={"id": seed_gallery_image_version_id()})
    assert status.phase == Phase.RUNNING
    assert vm_seen(stack)["imageReference"]["id"] == seed_gallery_image_version_id()


async def test_a_gallery_image_that_does_not_exist_fails_the_machine(stack: Stack) -> None:
    gone = seed_gallery_image_version_id().replace("1.0.0", "9.9.9")
    _, status = await settled(stack, image={"id": gone})
    assert status.phase == Phase.FAILED and "GalleryImageNotFound" in status.last_error and gone in status.last_error


async def test_a_plan_without_accept_terms_is_refused_and_never_accepted(stack: Stack) -> None:
    _, status = await settled(stack, plan=SEED_PLAN)
    assert status.phase == Phase.FAILED  # every creation attempt refused the same way (the activity never retried)
    assert "MarketplacePurchaseEligibilityFailed" in status.last_error
    assert "Legal terms have not been accepted" in status.last_error
    assert agreement_puts(stack) == 0


async def test_accept_terms_accepts_once_then_creates_with_the_plan(stack: Stack) -> None:
    _, status = await settled(stack, plan=SEED_PLAN, accept_terms=True)
    assert status.phase == Phase.RUNNING
    assert vm_seen(stack)["plan"] == SEED_PLAN
    assert agreement_puts(stack) == 1
    _, second = await settled(stack, "vm2", plan=SEED_PLAN, accept_terms=True)
    assert second.phase == Phase.RUNNING and agreement_puts(stack) == 1  # accepted already: read, not written


async def test_boot_diagnostics_are_enabled(stack: Stack) -> None:
    _, status = await settled(stack, boot_diagnostics=True)
    assert status.phase == Phase.RUNNING and vm_seen(stack)["bootDiagnostics"] is True


async def test_identity_and_boot_diagnostics_change_in_place(stack: Stack) -> None:
    handle, _ = await settled(stack)
    spec = spec_dict(subnet_id=stack.emulator.subnet_id)
    before = vm_seen(stack)
    assert before["identity"] is None and before["bootDiagnostics"] is False

    answer = await update(handle, {**spec, "identity": BOTH, "boot_diagnostics": True})
    assert answer.changed == ["identity", "boot_diagnostics"] and "VM updated in place" in answer.message
    after = vm_seen(stack)
    assert after["vmId"] == before["vmId"] and after["bootDiagnostics"] is True
    assert after["identity"]["principalId"] and len(after["identity"]["userAssignedIdentities"]) == 1
    assert (await status_of(handle)).inventory.identity_principal_id == after["identity"]["principalId"]

    system_only = await update(handle, {**spec, "identity": {"type": "SystemAssigned"}, "boot_diagnostics": True})
    assert system_only.changed == ["identity"]
    last = vm_seen(stack)
    assert last["vmId"] == before["vmId"] and last["identity"]["type"] == "SystemAssigned"
    assert last["identity"]["principalId"] == after["identity"]["principalId"]
    assert not last["identity"].get("userAssignedIdentities")


async def test_plan_and_image_changes_are_refused_naming_the_fields(stack: Stack) -> None:
    handle, _ = await settled(stack)
    spec = spec_dict(subnet_id=stack.emulator.subnet_id)
    message = await refused(handle, {**spec, "plan": SEED_PLAN, "accept_terms": True,
                                     "image": {"id": seed_gallery_image_version_id()}})
    assert "image.id" in message and "plan" in message and "accept_terms" in message and "needs a new VM" in message
