"""Options several `azmc` commands share (one home, so `azmc` and `azmc pool` spell them alike)."""

from typing import Annotated, Final

import typer

# Help texts as Markdown, not rich markup: rich would take "[env AZMC_...]" for a style tag and print nothing.
HELP_MARKUP: Final = "markdown"

TemporalAddress = Annotated[
    str | None, typer.Option("--temporal-address", help="host:port [env AZMC_TEMPORAL_ADDRESS]")
]
Namespace = Annotated[str | None, typer.Option("--namespace", "-n", help="[env AZMC_TEMPORAL_NAMESPACE]")]
ResourceGroup = Annotated[str, typer.Option("--resource-group", "-g", help="needed only when names are ambiguous")]
