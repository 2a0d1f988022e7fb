"""A local Azure Resource Manager emulator with fault injection (run: `python -m emulator`).

Layout (moto-like): `backends/` hold state and Azure's rules per resource type, `handlers/` translate
HTTP to backend calls, `app.py` wires routing, auth, request limits (`limits/`), faults and the control API.
"""
