"""`azmc offerings` and `azmc describe` show what Azure refused, what is skipped and until when, and which
offerings machines are trying (and who)."""

import uuid
from datetime import UTC, datetime, timedelta

from rich.console import Console
from temporalio.testing import WorkflowEnvironment

from activities.offerings import memory as offerings_memory
from cli.offerings import (
    current_probes,
    current_refusals,
    forget_refusals,
    forgotten_line,
    probes_table,
    refusals_table,
)
from cli.render import describe_view
from models.offering_claims import PROBE_FOR, ClaimRequest
from models.offerings import Offering, SkippedOffering
from models.offerings_memory import Forgotten, ProbeRelease, RefusalReport
from models.status import MachineStatus, OfferingAttempt, Phase
from workers.worker import offerings_worker

# Not on the shared server: these tests show what the CLI says when no memory ever existed, and a memory
# another test ended is still there (the same workflow id, closed) for a query to time out on.


def text(renderable: object) -> str:
    console = Console(width=200, record=True)
    console.print(renderable)
    return console.export_text()


async def test_offerings_lists_the_refusals_in_force(workflow_env: WorkflowEnvironment) -> None:
    task_queue = f"offerings-cli-{uuid.uuid4()}"
    zone1 = Offering(vm_size="Standard_D4s_v5", zone="1", location="westeurope", subscription="sub-1")
    env = workflow_env
    async with offerings_worker(env.client, task_queue):
        now = await env.get_current_time()
        assert await current_refusals(env.client, "sub-1", "westeurope", now) == []  # never refused: no memory
        await offerings_memory.tell(env.client, RefusalReport(offering=zone1, code="ZonalAllocationFailed",
                                                              machine="rg/vm1"), task_queue)
        found = await current_refusals(env.client, "sub-1", "westeurope", now + timedelta(minutes=12))
        shown = text(refusals_table(found, now + timedelta(minutes=12)))
        assert "Standard_D4s_v5 in zone 1" in shown and "ZonalAllocationFailed" in shown and "rg/vm1" in shown
        assert "48m" in shown  # retry after
        assert await current_refusals(env.client, "sub-1", "westeurope", now + timedelta(hours=2)) == []
        # An operator who knows capacity is back makes the memory forget (`azmc offerings --forget`).
        assert await forget_refusals(env.client, "sub-1", "westeurope") == Forgotten(refusals=1, probes=0)
        assert await current_refusals(env.client, "sub-1", "westeurope", now) == []
        assert await forget_refusals(env.client, "sub-2", "westeurope") == Forgotten()  # no memory there


async def test_offerings_shows_the_probes_in_flight_and_forget_releases_and_counts_them(
        workflow_env: WorkflowEnvironment) -> None:
    task_queue = f"offerings-cli-{uuid.uuid4()}"
    zone1 = Offering(vm_size="Standard_D4s_v5", zone="1", location="westeurope", subscription="sub-1")
    zone2 = zone1.model_copy(update={"zone": "2"})

    async def claim(machine: str) -> Offering | None:
        request = ClaimRequest(subscription="sub-1", location="westeurope", offerings=[zone1, zone2], machine=machine)
        return (await offerings_memory.claim(env.client, request, task_queue)).offering

    env = workflow_env

    async with offerings_worker(env.client, task_queue):
        now = await env.get_current_time()
        assert await current_probes(env.client, "sub-1", "westeurope", now) == []  # no memory
        assert (await claim("rg/vm1"), await claim("rg/vm2"), await claim("rg/vm3")) == (zone1, zone2, None)
        probes = await current_probes(env.client, "sub-1", "westeurope", now)
        assert [(p.offering, p.holder(), p.until - p.began()) for p in probes] == [
            (zone1, "machine/rg/vm1", PROBE_FOR), (zone2, "machine/rg/vm2", PROBE_FOR)]
        shown = text(probes_table(probes, now + timedelta(minutes=3)))
        assert "Standard_D4s_v5 in zone 1" in shown and "machine/rg/vm1" in shown and "3m ago" in shown
        assert "7m" in shown  # the probe ends by itself at the latest then

        # A machine that stops releases its probes (its deletion sends this); the memory says how many.
        release = ProbeRelease(subscription="sub-1", location="westeurope", machine="rg/vm1", reason="deleted")
        assert await offerings_memory.release(env.client, release) == 1
        assert await offerings_memory.release(env.client, release) == 0
        assert [p.holder() for p in await current_probes(env.client, "sub-1", "westeurope", now)] == ["machine/rg/vm2"]
        assert await claim("rg/vm3") == zone1  # nobody waits for the stopped machine's outcome

        await offerings_memory.tell(env.client, RefusalReport(offering=zone2, code="ZonalAllocationFailed",
                                                              machine="rg/vm2"), task_queue)
        forgotten = await forget_refusals(env.client, "sub-1", "westeurope")
        assert forgotten == Forgotten(refusals=1, probes=1)  # vm3's probe of zone 1
        assert forgotten_line(forgotten, "westeurope") == "forgot 1 refusals and 1 probes in westeurope"
        assert await current_probes(env.client, "sub-1", "westeurope", now) == []
        assert await offerings_memory.release(env.client, release.model_copy(update={"location": "northeurope"})) == 0


def test_describe_shows_the_offering_and_what_the_last_attempt_skipped() -> None:
    now = datetime.now(UTC)
    zone1 = Offering(vm_size="Standard_D4s_v5", zone="1")
    zone2 = zone1.model_copy(update={"zone": "2"})
    skipped = SkippedOffering(offering=zone1, code="ZonalAllocationFailed", refused_at=now - timedelta(minutes=12),
                              until=now + timedelta(minutes=48))
    status = MachineStatus(name="vm1", resource_group="rg", phase=Phase.RUNNING, offering=zone2,
                           offering_attempts=[OfferingAttempt(attempt=1, offering=zone2, skipped=[skipped])])
    shown = text(describe_view(status, "machine/rg/vm1"))
    assert "Standard_D4s_v5 in zone 2" in shown
    assert "Standard_D4s_v5 in zone 1: ZonalAllocationFailed 12m ago, retry after 4" in shown  # 47-48m
