"""`azmc offerings` and `azmc describe` show what Azure refused, what is skipped and until when."""

import uuid
from datetime import UTC, datetime, timedelta

from rich.console import Console

from activities import offerings_memory
from cli.offerings import current_refusals, forget_refusals, refusals_table
from cli.render import describe_view
from models.offerings import Offering, SkippedOffering
from models.offerings_memory import RefusalReport
from models.status import MachineStatus, OfferingAttempt, Phase
from tests.workflows.helpers import time_skipping_env
from workers.worker import offerings_worker


def text(renderable: object) -> str:
    console = Console(width=200, record=True)
    console.print(renderable)
    return console.export_text()


async def test_offerings_lists_the_refusals_in_force() -> None:
    task_queue = f"offerings-cli-{uuid.uuid4()}"
    zone1 = Offering(vm_size="Standard_D4s_v5", zone="1", location="westeurope", subscription="sub-1")
    async with time_skipping_env() as env, offerings_worker(env.client, task_queue):
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
        assert await forget_refusals(env.client, "sub-1", "westeurope") == 1
        assert await current_refusals(env.client, "sub-1", "westeurope", now) == []
        assert await forget_refusals(env.client, "sub-2", "westeurope") == 0  # no memory there


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
