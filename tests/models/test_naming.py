"""A machine's workflow id is built and read back by one rule: `machine/<resource group>/<name>`."""

import pytest

from models.naming import machine_of, workflow_id


def test_a_workflow_id_reads_back_as_its_machine() -> None:
    assert machine_of(workflow_id("azmc-demo", "vm1")) == ("azmc-demo", "vm1")


@pytest.mark.parametrize("wf_id", ["vm1", "azmc-demo/vm1", "machine/vm1", "machine/rg/", "machine//vm1",
                                   "machine/rg/vm1/x", "bare/rg/vm1"])
def test_anything_else_is_not_a_machine(wf_id: str) -> None:
    assert machine_of(wf_id) is None
