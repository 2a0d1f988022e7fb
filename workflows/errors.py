"""The error a workflow raises for input it cannot take: non-retryable, so the workflow fails at once."""

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from models.errors import ErrorType


def invalid_input(message: str) -> ApplicationError:
    return ApplicationError(message, type=ErrorType.INVALID_SPEC, non_retryable=True)
