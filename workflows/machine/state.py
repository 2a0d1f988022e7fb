"""The one serializable state a machine's workflow carries, across continue-as-new too: the contract between
versions (workflows/carried.py)."""

from datetime import datetime

from pydantic import BaseModel
from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from models.requests import DeleteRequest, PreserveRequest
    from models.spec import MachineSpec
    from models.status import MachineStatus

from workflows.carried import CarriedShape


class LifecycleState(BaseModel):
    # Marks a continue-as-new input, so it is never mistaken for (or validated as) a fresh MachineSpec.
    kind: str = "azmc.machine-lifecycle.state/v1"
    spec: MachineSpec
    status: MachineStatus
    # Start of the current creation (for creation_timeout); None when not creating.
    creation_started_at: datetime | None = None
    # When the health check first saw the VM missing or Failed; None while healthy.
    unknown_since: datetime | None = None
    # Set by the `delete` signal or by cancellation; once set, deletion runs to the end.
    delete_request: DeleteRequest | None = None
    # A `preserve` signal whose deallocation has not finished yet (carried, so it resumes in the next run).
    preserve_request: PreserveRequest | None = None
    # A `reconcile` signal that has not been acted on yet.
    reconcile_requested: bool = False
    # An operator's reconcile of a Failed machine: its next attempt tries the first offering, whatever the
    # shared memory of refused offerings says (workflows/machine/fallback.py).
    ignore_refusals_once: bool = False
    # The shared memory may hold a probe of this machine (a claim sent, or an unproven offering claimed, and
    # no outcome told yet): a machine that stops releases it (workflows/machine/fallback.py, release_probes).
    may_hold_probe: bool = False
    # History length that triggers continue-as-new (besides the server's suggestion).
    history_limit: int = 0
    # 1 for the first run, +1 on every continue-as-new (shown in current details).
    runs: int = 1
    # An update_spec changed tags that Azure has not got yet (the machine was not Running, or tagging
    # failed); `tags_removed`: tag names an earlier spec set that the resources still carry.
    tags_pending: bool = False
    tags_removed: list[str] = []
    # An update_spec changed the NIC's memberships (NSG, ASGs, load balancer pools) that Azure has not got yet.
    nic_pending: bool = False
    # Where probes of the guest go (its NIC's private IP, read once per VM; "" until read), and the probes'
    # streak: successes in a row (> 0) or failures in a row (< 0), for the thresholds.
    guest_address: str = ""
    probe_streak: int = 0
    # Ids of the notices Azure announced that the machine acted on and are over (workflows/machine/foresight.py).
    foresight_done: list[str] = []

    @classmethod
    def fresh(cls, spec: MachineSpec, history_limit: int) -> "LifecycleState":
        status = MachineStatus(name=spec.name, resource_group=spec.resource_group, pool=spec.pool)
        return cls(spec=spec, status=status, history_limit=history_limit)


# Version 1: what azmc 0.2 carried; no older shape is in use.
LIFECYCLE_STATE = CarriedShape("azmc.machine-lifecycle.state", LifecycleState)
