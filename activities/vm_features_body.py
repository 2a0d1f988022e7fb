"""The VM PUT body's parts for issue 28's spec fields: identity, gallery images, purchase plan, boot diagnostics,
and issue 43's scheduled events policy.

Each is added only when the spec asks for it, so a plain machine's body is what it was before them.
"""

from azure.mgmt.compute import models as cm

from models.spec import MachineSpec


def identity_body(spec: MachineSpec) -> cm.VirtualMachineIdentity | None:
    if spec.identity is None:
        return None
    users = {identity_id: cm.UserAssignedIdentitiesValue() for identity_id in spec.identity.user_assigned_identities}
    return cm.VirtualMachineIdentity(type=spec.identity.type.value, user_assigned_identities=users or None)


def diagnostics_body(spec: MachineSpec) -> cm.DiagnosticsProfile:
    # Managed storage: no storageUri, Azure keeps the screenshot and serial log itself.
    return cm.DiagnosticsProfile(boot_diagnostics=cm.BootDiagnostics(enabled=spec.boot_diagnostics))


def scheduled_events_policy(spec: MachineSpec) -> cm.ScheduledEventsPolicy:
    """Spec `foresight`: the VM's scheduled events published to Event Grid and Resource Graph, where the fleet sweep
    reads them for the whole fleet in its one query (docs/foresight.md)."""
    return cm.ScheduledEventsPolicy(
        scheduled_events_additional_publishing_targets=cm.ScheduledEventsAdditionalPublishingTargets(
            event_grid_and_resource_graph=cm.EventGridAndResourceGraph(enable=spec.foresight)))


def gallery_image(spec: MachineSpec) -> cm.ImageReference | None:
    """A shared or community gallery image's reference; None for the other kinds (vm_body builds those)."""
    if spec.image.shared_gallery_image_id:
        return cm.ImageReference(shared_gallery_image_id=spec.image.shared_gallery_image_id)
    if spec.image.community_gallery_image_id:
        return cm.ImageReference(community_gallery_image_id=spec.image.community_gallery_image_id)
    return None


def add_vm_features(vm: cm.VirtualMachine, spec: MachineSpec) -> None:
    """Set on `vm` (the PUT body) what the spec's identity, image, plan and boot diagnostics fields ask for."""
    vm.identity = identity_body(spec)
    image = gallery_image(spec)
    if image is not None:
        vm.storage_profile.image_reference = image
    if spec.plan is not None:
        vm.plan = cm.Plan(name=spec.plan.name, publisher=spec.plan.publisher, product=spec.plan.product)
    if spec.boot_diagnostics:
        vm.diagnostics_profile = diagnostics_body(spec)
    if spec.foresight:
        vm.scheduled_events_policy = scheduled_events_policy(spec)
