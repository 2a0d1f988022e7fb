"""The health activities through the real SDK against the emulator: the VM agent in the instance view,
Resource Health, restart and redeploy (the VM, its disks and NIC kept), the guest's address and a probe."""

from datetime import timedelta

from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import DeleteVmInput, MachineRef
from models.errors import ErrorType
from models.health import Probe, TcpProbe
from models.health_io import ProbeInput

RG = SEED_RESOURCE_GROUP
REF = MachineRef(resource_group=RG, name="vm1")


def _host(emulator) -> str:
    return next(r for r in emulator.resources("virtualMachines") if r["name"] == "vm1")["host"]


async def test_the_vm_agent_and_resource_health_show_a_host_failure(driver, env, make_spec, create_machine,
                                                                    emulator) -> None:
    spec = make_spec()
    await create_machine(spec)
    vm = await env.run(driver.find_vm, spec)
    assert vm.vm_state.agent == "Ready"
    assert (await env.run(driver.read_resource_health, REF)).state == "Available"
    emulator.add_guest_fault("vm1", "host_failure")
    sick = await env.run(driver.find_vm, spec)
    assert sick.vm_state.agent == "Not Ready"
    reading = await env.run(driver.read_resource_health, REF)
    assert reading.unavailable and reading.context == "Platform Initiated" and reading.since is not None
    assert "Platform Initiated" in reading.reason()


async def test_redeploy_moves_the_vm_to_a_new_host_keeping_it_and_restart_keeps_the_host(
        driver, env, make_spec, create_machine, emulator) -> None:
    created = await create_machine(make_spec())
    host = _host(emulator)
    restarted = await env.run(driver.restart_vm, REF)
    assert restarted.provider_id == created.provider_id and _host(emulator) == host
    redeployed = await env.run(driver.redeploy_vm, REF)
    assert redeployed.provider_id == created.provider_id and redeployed.disk_names == created.disk_names
    assert redeployed.vm_state.power_state == "running" and _host(emulator) != host
    assert emulator.requests()["by_operation"].get("virtualMachines.redeploy") == 1


async def test_a_repair_of_a_vm_that_is_gone_says_not_found(driver, env, make_spec, create_machine) -> None:
    await create_machine(make_spec())
    await env.run(driver.delete_vm, DeleteVmInput(machine=REF))
    try:
        await env.run(driver.restart_vm, REF)
    except Exception as err:  # the ApplicationError the workflow branches on
        assert getattr(err, "type", "") == ErrorType.NOT_FOUND
    else:
        raise AssertionError("restart of a missing VM succeeded")


async def test_a_probe_reaches_the_guest_through_the_emulator_and_fails_while_it_hangs(
        driver, env, make_spec, create_machine, emulator) -> None:
    spec = make_spec()
    await create_machine(spec)
    address = await env.run(driver.guest_address, spec)
    assert address.count(".") == 3
    probe = Probe(tcp=TcpProbe(port=22), timeout=timedelta(seconds=2))
    assert (await env.run(driver.probe_guest, ProbeInput(address=address, probe=probe))).ok
    emulator.add_guest_fault("vm1", "hang")
    failed = await env.run(driver.probe_guest, ProbeInput(address=address, probe=probe))
    assert not failed.ok and "tcp port 22" in failed.detail
    nobody = await env.run(driver.probe_guest, ProbeInput(address="10.255.255.254", probe=probe))
    assert not nobody.ok
