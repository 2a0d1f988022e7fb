"""The audit trail: every Azure request an activity attempt made, carried with its result into history.

An activity's result payload carries the requests in its metadata (`azmc-azure-requests`, JSON), beside
the value the workflow reads, so the workflow, its commands and replay are untouched; the codec seals the
whole payload, metadata included. A failed attempt carries them as the last detail of its
ApplicationError (`{"azure_requests": [...]}`). At most MAX_REQUESTS per attempt (the last ones; the
count of those left out is kept), so history stays bounded.
"""

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, TypeAdapter

AUDIT_METADATA = "azmc-azure-requests"
AUDIT_DETAIL = "azure_requests"
# The class attribute (True) by which a payload converter says it writes AUDIT_METADATA: the worker's audit
# interceptor sends the trail only through one that does (codec/converter.py).
CARRIES_TRAIL = "carries_audit_trail"
MAX_REQUESTS = 40


class AzureRequest(BaseModel):
    method: str
    operation: str  # virtualMachines.put, operations.poll, ... (activities/request_count.py)
    resource: str  # the ARM path, without the query
    status: int  # 0: no answer (connection failure)
    duration_ms: int
    request_id: str = ""  # x-ms-request-id: what an Azure support ticket asks for
    correlation_id: str = ""  # x-ms-correlation-request-id


class AuditTrail(BaseModel):
    requests: list[AzureRequest] = []
    left_out: int = 0  # earlier requests of the attempt beyond MAX_REQUESTS


TRAIL = TypeAdapter(AuditTrail)


@dataclass(frozen=True)
class Audited:
    """An activity's return value with the attempt's requests; the payload converter splits them."""

    value: Any
    trail: AuditTrail
