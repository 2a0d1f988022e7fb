"""ensure_vm passes the spec's custom_data and user_data to Azure (the emulator through the real SDK), and
no log line of the activity carries them."""

import base64
import hashlib
import logging

import pytest

SCRIPT = "#cloud-config\nruncmd: [kubeadm join --token abcdef.0123456789abcdef]\n"


async def test_vm_gets_custom_and_user_data(create_machine, make_spec, emulator, sdk,
                                            caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    await create_machine(make_spec(custom_data=SCRIPT, user_data="role=gpu"))
    (vm,) = emulator.resources("virtualMachines")
    assert vm["customDataSha256"] == hashlib.sha256(SCRIPT.encode()).hexdigest()
    read = await sdk.compute.virtual_machines.get("azmc-demo", "vm1", expand="userData")
    assert base64.b64decode(read.user_data) == b"role=gpu" and read.os_profile.custom_data is None
    assert "0123456789abcdef" not in caplog.text and base64.b64encode(SCRIPT.encode()).decode() not in caplog.text
