"""Turn the errors a user can fix into one line on stderr and a non-zero exit, never a stack trace."""

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.text import Text
from temporalio.service import RPCError

from cli.machines import MachineError
from cli.processes import StackError
from cli.spec_file import SpecError
from codec.aes_gcm import UndecodablePayloadError
from models.visible_text import visible
from workers.settings import Settings, SettingsError, load_settings

T = TypeVar("T")
# The message may hold a file name, a machine name or Azure's text: printed as Text, never as markup, on one line
# with its invisible characters escaped (models/visible_text.py).
stderr = Console(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)

# Errors whose message already says what is wrong and how to fix it.
USER_ERRORS: tuple[type[Exception], ...] = (SettingsError, SpecError, StackError, MachineError,
                                             UndecodablePayloadError)


def fail(message: str, code: int = 1) -> NoReturn:
    stderr.print(Text.assemble(("error:", "bold red"), " ", visible(message)))
    raise typer.Exit(code)


def settings_or_exit(**flags: object) -> Settings:
    """The settings from the environment and these flags (None: not given); a refused one is one line and exit 1."""
    try:
        return load_settings(**flags)
    except SettingsError as error:
        fail(str(error))


def note(message: str) -> None:
    """A line on stderr about something the command could not do, while the rest of its answer stands."""
    stderr.print(Text.assemble(("note:", "yellow"), " ", visible(message)))


def run_friendly(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run an async command; known failures become one readable line."""
    try:
        return asyncio.run(main())
    except USER_ERRORS as error:
        fail(str(error))
    except RPCError as error:
        fail(f"Temporal refused the request: {error.message} ({error.status.name.lower()})")
    except KeyboardInterrupt:
        fail("interrupted", code=130)
