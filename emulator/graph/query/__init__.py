"""Resource Graph query engine: a documented KQL subset over resource rows (engine.py: `execute`)."""
