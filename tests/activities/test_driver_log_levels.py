"""The driver logs as the workflow does: at info what each Azure step ended in, at debug also what it starts."""

import logging

import pytest

from models.activity_io import DeleteVmInput, EnsureVmInput, MachineRef
from tests.activities.test_idempotency import RG


async def _lines(caplog: pytest.LogCaptureFixture, level: int, driver, env, make_spec) -> list[str]:
    caplog.set_level(level, logger="temporalio.activity")
    spec = make_spec()
    await env.run(driver.ensure_vm, EnsureVmInput(spec=spec, nic_id=await env.run(driver.ensure_nic, spec)))
    await env.run(driver.delete_vm, DeleteVmInput(machine=MachineRef(resource_group=RG, name=spec.name)))
    return [r.getMessage() for r in caplog.records if r.name == "temporalio.activity" and r.levelno >= level]


async def test_info_says_what_each_step_ended_in(caplog: pytest.LogCaptureFixture, driver, env, make_spec) -> None:
    lines = await _lines(caplog, logging.INFO, driver, env, make_spec)
    assert any("NIC vm1-nic ready" in line for line in lines), lines
    assert any("VM ready" in line for line in lines) and any("VM vm1 deleted" in line for line in lines), lines
    assert not [line for line in lines if "creating VM" in line or "deleting VM" in line], lines


async def test_debug_adds_what_each_step_starts(caplog: pytest.LogCaptureFixture, driver, env, make_spec) -> None:
    lines = await _lines(caplog, logging.DEBUG, driver, env, make_spec)
    assert any("creating VM (Standard_" in line for line in lines), lines
    assert any("deleting VM vm1" in line for line in lines), lines
