"""`python -m cli ...` is the `azmc` command, usable before the project is pip-installed."""

from cli.commands import main

main()
