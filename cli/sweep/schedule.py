"""`azmc schedule ensure`: create or update the fleet sweep's Temporal Schedule (`azmc-fleet-sweep`)."""

from typing import Annotated

import typer

from cli.options import HELP_MARKUP, Namespace, TemporalAddress, setting_option
from models.durations import format_duration

schedule_app = typer.Typer(help="The fleet sweep's Temporal Schedule `azmc-fleet-sweep`.", no_args_is_help=True,
                           rich_markup_mode=HELP_MARKUP)


@schedule_app.command()
def ensure(
    temporal_address: TemporalAddress = None,
    namespace: Namespace = None,
    sweep_interval: Annotated[str | None, setting_option("sweep_interval")] = None,
    orphan_grace: Annotated[str | None, setting_option("orphan_grace")] = None,
    max_orphan_deletions: Annotated[int | None, setting_option("max_orphan_deletions")] = None,
) -> None:
    """Create the schedule, or bring it to these settings (an operator's pause is kept)."""
    from cli.errors import run_friendly, settings_or_exit
    from workers.connect import connect
    from workers.sweep_schedule import ensure_sweep_schedule

    settings = settings_or_exit(temporal_address=temporal_address, temporal_namespace=namespace,
                                sweep_interval=sweep_interval, orphan_grace=orphan_grace,
                                max_orphan_deletions=max_orphan_deletions)

    async def main() -> None:
        done = await ensure_sweep_schedule(await connect(settings), settings)
        print(f"schedule azmc-fleet-sweep {done}: every {format_duration(settings.sweep_interval)}, orphan grace "
              f"{format_duration(settings.orphan_grace)}, at most {settings.max_orphan_deletions} deletions per sweep")

    run_friendly(main)
