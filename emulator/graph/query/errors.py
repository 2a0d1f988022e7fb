"""The one error type of the query engine.

The HTTP layer turns it into Resource Graph's 400 answer; `error_body()` builds that body so the
route does not need to know the detail codes.
"""

from __future__ import annotations

from typing import Any


class QueryError(Exception):
    """A query (or its paging options) the engine refuses: bad syntax, unsupported KQL, bad token.

    `detail_code` mirrors the inner code Resource Graph puts in `error.details[]`
    (InvalidQuery, UnsupportedOperator, UnsupportedFunction, InvalidSkipToken, ...).
    """

    code = "BadRequest"

    def __init__(self, message: str, detail_code: str = "InvalidQuery") -> None:
        super().__init__(message)
        self.message = message
        self.detail_code = detail_code

    def error_body(self) -> dict[str, Any]:
        """ARM error body as Resource Graph answers it (code BadRequest, the cause in details)."""
        return {
            "error": {
                "code": self.code,
                "message": self.message,
                "details": [{"code": self.detail_code, "message": self.message}],
            }
        }
