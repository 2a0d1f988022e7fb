"""`CliRunner().invoke(app, ...)` builds the click command of `azmc`'s whole Typer app again on every call: 38 ms
of the 52 an invoke of a refused flag takes, and the suite invokes it about a thousand times. A click command is
reusable, as it is in `azmc` itself (built once a process), so the test processes build each app once.

Installed by tests/conftest.py for every test process: `built_once()`.
"""

from typing import Any

import typer.main
import typer.testing


def built_once() -> None:
    """typer.testing builds the command with `typer.main.get_command`, which it imported as `_get_command`."""
    built: dict[int, tuple[typer.Typer, Any]] = {}  # id -> (the app, kept alive; its command)

    def command_of(app: typer.Typer) -> Any:
        kept = built.get(id(app))
        if kept is None or kept[0] is not app:
            kept = built[id(app)] = (app, typer.main.get_command(app))
        return kept[1]

    typer.testing._get_command = command_of
