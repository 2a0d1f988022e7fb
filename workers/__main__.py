"""`python -m workers ...` is the `azmc` command, usable before the project is pip-installed."""

from workers.cli import main

main()
