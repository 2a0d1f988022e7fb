"""Conditional writes on a VM, as Compute documents them: `If-None-Match: *` only creates, `If-Match: <etag>`
only changes the version read; both refused with 412 PreconditionFailed, through the real SDK."""

import pytest
from azure.core import MatchConditions
from azure.core.exceptions import ResourceExistsError, ResourceModifiedError
from azure.mgmt.compute import models as cm

from tests.emulator.builders import RG, vm_body
from tests.emulator.steps import make_nic, make_vm
from tests.support.emulator import EmulatorHandle
from tests.support.sdk import SyncClients


def test_a_create_only_put_creates_once_and_then_is_refused(emulator: EmulatorHandle, clients: SyncClients) -> None:
    vms = clients.compute.virtual_machines
    body = vm_body("only-once", make_nic(clients, emulator, "only-once-nic"))
    created = vms.begin_create_or_update(RG, "only-once", body, match_condition=MatchConditions.IfMissing).result()
    with pytest.raises(ResourceExistsError) as refused:
        vms.begin_create_or_update(RG, "only-once", body, match_condition=MatchConditions.IfMissing)
    assert refused.value.status_code == 412 and refused.value.error.code == "PreconditionFailed"
    assert vms.get(RG, "only-once").etag == created.etag  # the refused PUT changed nothing


def test_an_update_of_the_version_read_lands_and_a_stale_one_is_refused(emulator: EmulatorHandle,
                                                                       clients: SyncClients) -> None:
    vms = clients.compute.virtual_machines
    read = make_vm(clients, emulator, "versioned")
    assert read.etag
    changed = vms.begin_update(RG, "versioned", cm.VirtualMachineUpdate(tags={"a": "1"}), etag=read.etag,
                               match_condition=MatchConditions.IfNotModified).result()
    assert changed.tags == {"a": "1"} and changed.etag != read.etag
    with pytest.raises(ResourceModifiedError) as stale:  # someone changed it since `read`
        vms.begin_update(RG, "versioned", cm.VirtualMachineUpdate(tags={"b": "2"}), etag=read.etag,
                         match_condition=MatchConditions.IfNotModified)
    assert stale.value.status_code == 412
    assert vms.get(RG, "versioned").tags == {"a": "1"}
