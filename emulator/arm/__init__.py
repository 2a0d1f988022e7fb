"""ARM itself, shared by every provider: ids, errors, the store, long-running operations, faults, routing and
responses; `rules/` is ARM's request validation, `handlers/` its own routes."""
