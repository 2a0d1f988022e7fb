"""Counts every ARM request the driver sends, per `<resourceType>.<verb>` (the emulator's operation names), and
tells the worker's metrics each one's provider and status code (activities/metrics.py)."""

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from urllib.parse import urlsplit

from azure.core.pipeline import PipelineRequest, PipelineResponse
from azure.core.pipeline.policies import SansIOHTTPPolicy

from activities.metrics import AzureMetrics

# Long-running-operation status URLs (Azure-AsyncOperation / Location targets).
_OPERATION_STATUS_TYPES = {"operations", "operationstatuses", "operationresults", "asyncoperations"}


def _lower_first(word: str) -> str:
    return word[:1].lower() + word[1:]


def operation_name(method: str, url: str) -> str:
    """Name an ARM request: `networkInterfaces.put`, `virtualMachines.powerOff`, `operations.poll`, ..."""
    segments = [s for s in urlsplit(url).path.split("/") if s]
    lowered = [s.lower() for s in segments]
    method = method.upper()
    if "providers" not in lowered:
        if lowered[-1:] == ["resources"]:  # /subscriptions/<id>/resourcegroups/<rg>/resources: ARM's listing
            return f"resources.{_verb(method, named=False)}"
        # /subscriptions/<id>/resourcegroups/<rg>
        kind = "resourceGroups" if "resourcegroups" in lowered else "subscriptions"
        named = lowered[-1] not in ("resourcegroups", "subscriptions")
        return f"{kind}.{_verb(method, named)}"
    start = len(lowered) - 1 - lowered[::-1].index("providers")
    namespace = lowered[start + 1] if start + 1 < len(lowered) else ""
    rest = segments[start + 2 :]
    if namespace == "microsoft.resourcegraph":
        return "resourceGraph.query"
    if any(part.lower() in _OPERATION_STATUS_TYPES for part in rest[::2]):
        return "operations.poll"
    types = rest[::2]
    names = rest[1::2]
    if not types:
        return f"providers.{method.lower()}"
    if len(types) > len(names):
        # .../virtualMachines/vm1/powerOff: an action on the named parent resource.
        if len(types) >= 2 and method == "POST":
            return f"{_lower_first(types[-2])}.{types[-1]}"
        return f"{_lower_first(types[-1])}.{_verb(method, named=False)}"
    return f"{_lower_first(types[-1])}.{_verb(method, named=True)}"


def provider_of(url: str) -> str:
    """The resource provider a request goes to (`Microsoft.Compute`), as ARM spells it; `ARM` for ARM's own
    resources (resource groups, the subscription's listing)."""
    segments = [s for s in urlsplit(url).path.split("/") if s]
    lowered = [s.lower() for s in segments]
    if "providers" not in lowered:
        return "ARM"
    start = len(lowered) - 1 - lowered[::-1].index("providers")
    return segments[start + 1][:64] if start + 1 < len(segments) else "ARM"


def _verb(method: str, named: bool) -> str:
    if method == "GET":
        return "get" if named else "list"
    return method.lower()


_SCOPED: ContextVar[Counter[str] | None] = ContextVar("azmc_scoped_requests", default=None)


@contextmanager
def counting() -> Iterator[Counter[str]]:
    """Count the ARM requests this task (and the tasks it starts) sends, apart from the driver's total:
    the fleet sweep reports what each of its activities cost, while other activities run beside it."""
    counts: Counter[str] = Counter()
    token = _SCOPED.set(counts)
    try:
        yield counts
    finally:
        _SCOPED.reset(token)


class RequestCounter:
    """Shared by all clients of one driver; asyncio-only, so a plain Counter is safe."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    def record(self, method: str, url: str) -> None:
        self._counts[operation_name(method, url)] += 1
        scoped = _SCOPED.get()
        if scoped is not None:
            scoped[operation_name(method, url)] += 1

    def snapshot(self) -> dict[str, int]:
        return dict(sorted(self._counts.items()))

    def reset(self) -> None:
        self._counts.clear()


class RequestCountingPolicy(SansIOHTTPPolicy):
    """Placed after the retry policy, so an SDK-level retry counts as the extra request it is."""

    def __init__(self, counter: RequestCounter, metrics: AzureMetrics | None = None) -> None:
        self._counter = counter
        self._metrics = metrics or AzureMetrics()

    def on_request(self, request: PipelineRequest) -> None:
        self._counter.record(request.http_request.method, request.http_request.url)

    def on_response(self, request: PipelineRequest, response: PipelineResponse) -> None:
        self._tell(request, response.http_response.status_code)

    def on_exception(self, request: PipelineRequest) -> None:
        self._tell(request, None)

    def _tell(self, request: PipelineRequest, status: int | None) -> None:
        http = request.http_request
        self._metrics.request(provider_of(http.url), operation_name(http.method, http.url), status)
