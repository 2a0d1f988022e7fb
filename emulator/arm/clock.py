"""One clock for every built-in delay, so the time scale applies everywhere."""

import asyncio
import time
from datetime import UTC, datetime

from emulator.settings import LiveSettings


class Clock:
    def __init__(self, settings: LiveSettings) -> None:
        self._settings = settings

    @property
    def scale(self) -> float:
        return self._settings.time_scale

    def now(self) -> float:
        """Monotonic wall seconds."""
        return time.monotonic()

    def scaled(self, azure_seconds: float) -> float:
        """Wall seconds that an Azure duration takes at the current time scale."""
        return azure_seconds * self._settings.time_scale

    async def sleep_scaled(self, azure_seconds: float) -> None:
        wall = self.scaled(azure_seconds)
        if wall > 0:
            await asyncio.sleep(wall)

    @staticmethod
    def utc_iso() -> str:
        return datetime.now(UTC).isoformat().replace("+00:00", "Z")
