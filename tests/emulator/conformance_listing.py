"""The list of the operations the emulator serves, from its router, each with Microsoft's examples of it and their
state (tests/emulator/rest_examples/OPERATIONS.md; test_conformance checks it is current).

Run: `.venv/bin/python -m tests.emulator.conformance_listing` to write it again.
"""

from __future__ import annotations

from pathlib import Path

from emulator.app import build_router
from emulator.arm.handlers.not_emulated import NOT_EMULATED
from tests.emulator import conformance_catalog as catalog

OUT = Path(__file__).parent / "rest_examples" / "OPERATIONS.md"


def _state(example: str) -> str:
    miss = catalog.MISSES.get(example)
    if miss is None and example in catalog.CIRCUMSTANTIAL:
        keys, why = catalog.CIRCUMSTANTIAL[example]
        return f"conforms ({', '.join(f'`{k}`' for k in sorted(keys))} not expected: {why})"
    if miss is None:
        return "conforms"
    return ("refused on purpose: " if miss.refused else "miss: ") + miss.reason


def render() -> str:
    lines = [
        "# Operations the emulator serves",
        "",
        "Generated from the emulator's router by `tests/emulator/conformance_listing.py` (do not edit). Each "
        "example runs in `tests/emulator/test_conformance.py`; sources and API versions in `SOURCES.md`.",
        "",
        "| method | Azure operation | examples |",
        "|---|---|---|",
    ]
    examples_total = 0
    for route in build_router().routes:
        if route.azure in NOT_EMULATED_IDS:
            continue
        if not route.azure:
            lines.append(f"| {route.method} | ARM operation status `{route.template.rsplit('/', 2)[-2]}` | "
                         "none published (ARM's generic long-running operation endpoints) |")
            continue
        examples = catalog.OPERATIONS[route.azure].examples
        examples_total += len(examples)
        none = "none published (resources 2025-04-01)" if route.azure in catalog.UNPUBLISHED else "none vendored yet"
        shown = "<br>".join(f"`{e.split('/')[-1]}`: {_state(e)}" for e in examples) or none
        lines.append(f"| {route.method} | {route.azure} | {shown} |")
    misses = sum(1 for operation in catalog.OPERATIONS.values() for e in operation.examples if e in catalog.MISSES)
    lines += [
        "",
        f"{examples_total} examples, {examples_total - misses} conform "
        f"({100 * (examples_total - misses) / examples_total:.0f}%).",
        "",
        "## Not emulated",
        "",
        "Operations of these resource types that the emulator refuses on purpose, as ARM answers a request it does "
        "not serve: 404 `InvalidResourceType`, naming the operation.",
        "",
        "| method | Azure operation |",
        "|---|---|",
        *[f"| {method} | {azure} |" for method, _, azure in NOT_EMULATED],
        "",
    ]
    return "\n".join(lines)


NOT_EMULATED_IDS = {azure for _, _, azure in NOT_EMULATED}

if __name__ == "__main__":
    OUT.write_text(render())
