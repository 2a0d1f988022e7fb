"""Microsoft.ResourceHealth: each VM's availability, with its reason and since when; `handlers/` is the HTTP."""
