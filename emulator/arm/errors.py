"""ARM error responses: `{"error": {"code", "message", "target"?, "details": []}}`."""

from typing import Any


class ArmError(Exception):
    def __init__(self, status: int, code: str, message: str, target: str | None = None,
                 details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.target = target
        self.details = details or []

    def error_object(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message, "details": self.details}
        if self.target:
            error["target"] = self.target
        return error

    def body(self) -> dict[str, Any]:
        return {"error": self.error_object()}


def resource_group_not_found(name: str) -> ArmError:
    return ArmError(404, "ResourceGroupNotFound", f"Resource group '{name}' could not be found.")


def resource_not_found(type_name: str, name: str, resource_group: str) -> ArmError:
    return ArmError(
        404,
        "ResourceNotFound",
        f"The Resource '{type_name}/{name}' under resource group '{resource_group}' was not found. "
        "For more details please go to https://aka.ms/ARMResourceNotFoundFix",
    )


def another_operation_in_progress(resource_id: str, operation_id: str) -> ArmError:
    return ArmError(
        409,
        "AnotherOperationInProgress",
        f"Another operation on this or dependent resource is in progress. To retrieve status of the "
        f"operation use uri: {operation_id}. Resource: {resource_id}",
    )


def out_of_range(parameter: str, value: int, low: int, high: int) -> ArmError:
    return ArmError(400, "InvalidParameter", f"The value {value} of parameter '{parameter}' is out of range. The value "
                    f"must be between {low} and {high}, inclusive.", target=parameter)


def invalid(message: str, target: str | None = None, code: str = "InvalidParameter") -> ArmError:
    return ArmError(400, code, message, target)
