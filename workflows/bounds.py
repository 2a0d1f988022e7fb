"""A workflow's input checked against the duration bounds (models/durations.py) without changing old histories.

A run begun before the bounds may hold a duration they refuse (a 5 s health check interval): its replay must
take it as it did then, while a new run (or a new update) is refused naming the field and the bounds.
"""

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import ValidationError

    from models.durations import CHECK_BOUNDS

from workflows import patches

T = TypeVar("T")


def within_bounds(validate: Callable[[Mapping[str, Any] | None], T]) -> T:
    """`validate(CHECK_BOUNDS)`; a value only the bounds refuse (`validate(None)`, azmc's earlier rules, takes it)
    passes in a run begun before DURATION_BOUNDS. For a workflow's input and an update's handler; an update's
    validator, which runs only for a new update, checks with CHECK_BOUNDS alone."""
    try:
        return validate(CHECK_BOUNDS)
    except ValidationError as refused:
        try:
            earlier = validate(None)
        except ValidationError:
            raise refused from None
        if patches.patched(patches.DURATION_BOUNDS):
            raise refused from None
        return earlier
