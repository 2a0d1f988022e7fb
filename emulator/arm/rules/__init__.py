"""ARM's request validation, one home for every rule: body size and JSON (`json_body`), resource names
(`names`), tags (`tags`), JSON types per resource type (`shapes`) and the ids a body links to (`linked_ids`);
the marketplace's ids (`marketplace`) are checked where a request uses them. Each broken rule is a 400 (413 for
size) in ARM's error shape with Azure's code, raised before any backend sees the request.

Independent of azmc's own `models/arm_names.py` on purpose: the emulator stands for Azure, so azmc's
checks are tested against these rules rather than sharing (and repeating) their assumptions."""
