"""`azmc describe` when the machine does not answer: what the server holds of it, said so.

A machine's `status` query waits for its pending workflow task (the server holds it until that task is done), and on
a busy worker that task waits its turn. After QUERY_WAIT the view is the describe's: how its workflow runs and the
phase it last set (AzmcPhase), with a line saying the machine itself did not answer (cli/pool/headline.py does the
same for a pool).
"""

from rich.panel import Panel
from rich.text import Text
from temporalio.client import Client

from cli import machines
from cli.machines import QUERY_WAIT, answered_soon
from cli.render import facts_table, phase_text
from models.search_attributes import AZMC_PHASE, AZMC_POOL
from models.status import MachineStatus


async def status_or_view(client: Client, wf_id: str) -> MachineStatus | Panel:
    """The machine's own status, or after QUERY_WAIT the server's view of it."""
    answer = await answered_soon(machines.status(client, wf_id))
    if answer is not None:
        return answer
    found = await client.get_workflow_handle(wf_id).describe()
    facts = facts_table(wf_id)
    facts.add_row("Answered by", Text(f"the server: the machine did not answer within {QUERY_WAIT.total_seconds():g} s "
                                      "(its workflow task waits its turn on a busy worker): its phase as it last set "
                                      "it", style="yellow"))
    facts.add_row("Phase", phase_text(found.typed_search_attributes.get(AZMC_PHASE) or "Pending"))
    facts.add_row("Pool", Text(found.typed_search_attributes.get(AZMC_POOL) or "-"))
    facts.add_row("Workflow runs", Text(machines.execution_state(found.status) or "-"))
    return Panel(facts, title=Text(wf_id))
