"""Names reach Azure only as what they are, and Azure's text comes back only as text, through the real SDK and the
emulator: a name the driver puts into a URL itself is one path segment (the SDK escapes the rest), and an Azure
message is shown with its invisible characters escaped (the status, the UI, logs and `temporal` carry it)."""

import pytest
from temporalio.exceptions import ApplicationError

from emulator.seed import SEED_RESOURCE_GROUP
from models.activity_io import MachineRef

RG = SEED_RESOURCE_GROUP


async def test_a_name_in_resource_healths_url_is_one_segment(driver, env, make_spec, create_machine,
                                                             emulator) -> None:
    await create_machine(make_spec())
    emulator.add_guest_fault("vm1", "host_failure")
    assert (await env.run(driver.read_resource_health, MachineRef(resource_group=RG, name="vm1"))).unavailable
    # Put into the URL as it is, this name would climb back to vm1 and read vm1's health; escaped, it names no VM.
    reading = await env.run(driver.read_resource_health, MachineRef(resource_group=RG, name="ghost/../vm1"))
    assert reading.state == "" and not reading.unavailable


async def test_azures_message_is_carried_with_its_invisible_characters_escaped(driver, env, make_spec,
                                                                              emulator) -> None:
    emulator.add_fault("networkInterfaces.put", name="vm1-nic", status=400, code="InvalidParameter",
                       message="name 'x\u202egnp.exe' refused\x1b[2J\nRunning")
    with pytest.raises(ApplicationError) as failed:
        await env.run(driver.ensure_nic, make_spec())
    message = failed.value.message
    assert "name 'x\\u202egnp.exe' refused\\x1b[2J\\nRunning" in message
    assert not any(char in message for char in "\u202e\x1b\n")
