"""Options several `azmc` commands share (one home, so `azmc` and `azmc pool` spell them alike), and the flags that
set a worker setting: named, explained and bounded by the setting itself (workers/settings_table.py)."""

from typing import Annotated, Any, Final

import typer

from workers.settings import flag_of
from workers.settings_table import in_brackets, meaning

# Help texts as Markdown, not rich markup: rich would take "[env AZMC_...]" for a style tag and print nothing.
HELP_MARKUP: Final = "markdown"


def setting_option(name: str, text: str = "", *short: str) -> Any:
    """The flag that sets the setting `name`, as load_settings names it in a refusal; its help is `text` (else the
    setting's meaning) and what the settings say of it: `[env AZMC_X, default Y; bounds]`."""
    return typer.Option(flag_of(name), *short, help=f"{text or meaning(name)} {in_brackets(name)}")


TemporalAddress = Annotated[str | None, setting_option("temporal_address", "host:port")]
Namespace = Annotated[str | None, setting_option("temporal_namespace", "the Temporal namespace", "-n")]
ResourceGroup = Annotated[str, typer.Option("--resource-group", "-g", help="needed only when names are ambiguous")]
