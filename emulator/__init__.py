"""A local Azure Resource Manager emulator with fault injection (run: `python -m emulator`).

Grouped by resource provider, as Azure and moto group them: `compute/`, `network/`, `resources/`, `graph/`,
`health/`, each with its backends (state and Azure's rules) at its top and its HTTP in `handlers/`; `arm/` is ARM
itself (ids, errors, the store, operations, faults, routing, `rules/`), `limits/` Azure's request limits, `control/`
the control API; `app.py` wires them (emulator/README.md, "Layout"). Empty on purpose: azmc imports `seed.py`,
and importing it runs this file first.
"""
