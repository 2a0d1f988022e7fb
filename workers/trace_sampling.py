"""Which spans without a parent start a trace: the operations the workflows open and the shared status reads
(workers/tracing.py ROOT_PREFIXES). Anything else without a parent (a health check's or the sweep's ARM requests)
is dropped at once, unrecorded: a trace per operation, not one per request."""

from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult


class OperationRoots(Sampler):
    def __init__(self, prefixes: Sequence[str]) -> None:
        self._prefixes = tuple(prefixes)

    def should_sample(self, parent_context: Any, trace_id: int, name: str, kind: Any = None, attributes: Any = None,
                      links: Any = None, trace_state: Any = None) -> SamplingResult:
        if name.startswith(self._prefixes):
            return SamplingResult(Decision.RECORD_AND_SAMPLE, attributes)
        return SamplingResult(Decision.DROP)

    def get_description(self) -> str:
        return f"OperationRoots{self._prefixes}"
