"""The aiohttp application: auth, request counting, Azure's request limits and request-stage faults around ARM
routes."""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path

from aiohttp import web

from emulator.arm.errors import ArmError
from emulator.arm.faults import load_file
from emulator.arm.handlers import not_emulated, operations
from emulator.arm.responses import error_response, retry_headers
from emulator.arm.routing import Call, Router, read_body
from emulator.arm.rules.json_body import MAX_BODY_BYTES
from emulator.arm.rules.request import check_request
from emulator.compute.handlers import (
    boot_diagnostics,
    capacity_reservations,
    disks,
    marketplace,
    resource_skus,
    usages,
    virtual_machines,
    vm_extensions,
)
from emulator.control import (
    control,
    control_capacity,
    control_catalog,
    control_guest,
    control_health,
    control_maintenance,
)
from emulator.graph.handlers import resource_graph
from emulator.health.handlers import resource_health
from emulator.network.handlers import network_extras, network_interfaces, virtual_networks
from emulator.pricing import routes as pricing_routes
from emulator.registry import Backends
from emulator.resources.handlers import generic_resources, resource_groups
from emulator.seeding import seed
from emulator.settings import EmulatorConfig
from emulator.state import EmulatorState

log = logging.getLogger(__name__)
ROUTER = web.AppKey("router", Router)
_OPERATION = "azmc_operation"  # the matched route's "<resourceType>.<verb>", for the failed counts


def build_router() -> Router:
    return Router([
        *operations.routes(),
        *resource_groups.routes(),
        *virtual_networks.routes(),
        *network_interfaces.routes(),
        *network_extras.routes(),
        *resource_skus.routes(),
        *disks.routes(),
        *capacity_reservations.routes(),
        *virtual_machines.routes(),
        *vm_extensions.routes(),
        *boot_diagnostics.routes(),
        *marketplace.routes(),
        *usages.routes(),
        *resource_health.routes(),
        *resource_graph.routes(),
        *generic_resources.routes(),
        *not_emulated.routes(),
    ])


def _authorized(request: web.Request) -> bool:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and bool(token.strip())


async def dispatch(request: web.Request) -> web.StreamResponse:
    response = await _dispatch(request)
    operation = request.get(_OPERATION)
    if operation is not None and response.status >= 400:
        state = request.app[control.BACKENDS].state
        state.failed_counts[operation] += 1
        if response.status == 429:
            state.throttled_counts[operation] += 1
    return response


async def _dispatch(request: web.Request) -> web.StreamResponse:
    backends = request.app[control.BACKENDS]
    state = backends.state
    # As ARM: a new request id per request; the caller's correlation id echoed (else a new one), and its
    # client request id echoed when it sent one.
    headers = {"x-ms-request-id": str(uuid.uuid4()),
               "x-ms-correlation-request-id": request.headers.get("x-ms-correlation-request-id", str(uuid.uuid4()))}
    if request.headers.get("x-ms-client-request-id"):
        headers["x-ms-client-request-id"] = request.headers["x-ms-client-request-id"]
    if not _authorized(request):
        return error_response(ArmError(401, "AuthenticationFailed",
                                       "Authentication failed. The 'Authorization' header is missing or "
                                       "is not a Bearer token."), headers)
    raw_path = request.rel_url.raw_path  # still percent-encoded: what the route's segments are cut from
    matched = request.app[ROUTER].match(request.method, raw_path)
    if matched is None:
        if request.app[ROUTER].path_known(raw_path):
            return error_response(ArmError(405, "MethodNotAllowed",
                                           f"The method '{request.method}' is not supported here."), headers)
        return error_response(ArmError(404, "NotFound", f"No emulated ARM route for '{raw_path}'."), headers)
    route, params = matched
    state.request_counts[route.operation] += 1
    request[_OPERATION] = route.operation

    subscription = params.get("sub")
    if subscription:
        enforce = state.settings.throttling or state.settings.limits == "azure"
        kind, remaining, retry_after = state.limits.arm_take(subscription, request.method, enforce)
        headers[f"x-ms-ratelimit-remaining-subscription-{kind}"] = str(remaining)
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
            return error_response(ArmError(
                429, "SubscriptionRequestsThrottled",
                f"Number of '{kind}' requests for subscription '{subscription}' actor '' exceeded. Please try "
                f"again after '{retry_after}' seconds after additional tokens are available.",
            ), headers)

    fault = state.faults.take(route.operation, params.get("name", ""), "request")
    if fault is not None:
        if fault.delay_s > 0:
            await asyncio.sleep(fault.delay_s)
        if fault.fails:
            if fault.retry_after_s is not None:
                headers.update(retry_headers(fault.retry_after_s))
            return error_response(fault.error(), headers)

    try:
        body = await read_body(request)
        if subscription and state.settings.limits == "azure":  # the provider throttles before it validates
            provider_headers, refusal = state.limits.provider_take(route.resource_type, route.verb, request.method,
                                                                   params, body, state.store)
            headers.update(provider_headers)
            if refusal is not None:
                headers["Retry-After"] = str(refusal.retry_after_s)
                return error_response(refusal.error, headers)
        check_request(route.resource_type, route.verb, params, body)
        response = await route.handler(Call(request, params, backends, body))
    except ArmError as error:
        return error_response(error, headers)
    except Exception:  # an emulator bug: still ARM's shape, and logged so a test shows it
        log.exception("%s %s crashed", request.method, request.path)
        return error_response(ArmError(500, "InternalServerError", "The emulator failed on this request."),
                              headers)
    response.headers.update(headers)
    return response


def build_app(config: EmulatorConfig) -> web.Application:
    app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[control.control_errors])
    state = EmulatorState(config)
    backends = Backends.create(state)
    app[control.BACKENDS] = backends
    app[ROUTER] = build_router()
    if config.faults_file is not None:
        for raw in load_file(Path(config.faults_file)):
            state.faults.add_raw(raw)
    control.add_routes(app)
    control_capacity.add_routes(app, backends)
    control_guest.add_routes(app, backends)
    control_health.add_routes(app, backends)
    control_maintenance.add_routes(app, backends)
    control_catalog.add_routes(app, backends)
    pricing_routes.add_routes(app, backends)
    boot_diagnostics.add_blob_routes(app, backends.state)
    app.router.add_route("*", "/{tail:.*}", dispatch)

    async def on_startup(_: web.Application) -> None:
        if config.seed:
            seed(backends)

    async def on_cleanup(_: web.Application) -> None:
        await state.operations.cancel_all()

    app.on_startup.append(on_startup)
    app.on_cleanup.append(on_cleanup)
    return app
