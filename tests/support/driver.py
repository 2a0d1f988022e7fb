"""A real AzureDriver (real SDK clients) against the emulator, acting for one azmc installation."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from activities.config import AzureConfig
from activities.driver import AzureDriver
from tests.support.emulator import EmulatorHandle


@asynccontextmanager
async def emulator_driver(emulator: EmulatorHandle, installation: str, token: str,
                          **settings: Any) -> AsyncIterator[AzureDriver]:
    """`settings`: further AzureConfig fields (force_delete_vms=False, ...)."""
    config = AzureConfig(installation_id=installation, subscription_id=emulator.subscription_id,
                         endpoint=emulator.url, emulator_token=token, **settings)  # fmt: skip
    driver = await AzureDriver.open(config)
    try:
        yield driver
    finally:
        await driver.close()
