"""A codec key this worker lacks, met in a payload: said once in the log and counted in a metric
(`azmc_codec_key_missing`, by key id), so an operator sees a rotation rolled out in the wrong order
(docs/security.md, "Rotation")."""

import logging
import re

from temporalio.common import MetricMeter

METRIC = "azmc_codec_key_missing"
SAID_AT_MOST = 20  # key ids come from payloads anyone may send: the log and the metric name this many at most
_KEY_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
log = logging.getLogger("azmc.codec")


class MissingKeys:
    def __init__(self, meter: MetricMeter, own: list[str]) -> None:
        self._counter = meter.create_counter(METRIC, "payloads this worker could not open: their codec key is not "
                                                     "among its keys", "payloads")
        self._own = ", ".join(own) or "none"
        self._said: set[str] = set()

    def met(self, key_id: str, held_elsewhere: bool) -> None:
        named = key_id if _KEY_ID.fullmatch(key_id) else "(not a key id)"
        if named not in self._said and len(self._said) >= SAID_AT_MOST:
            named = "(more)"
        self._counter.with_additional_attributes({"key_id": named}).add(1)
        if named in self._said:
            return
        self._said.add(named)
        fate = ("another worker polling has it, and is left what arrives under it" if held_elsewhere else
                "no other worker polling has it: a message under it is refused, a history that uses it waits")
        log.warning("codec key %r: this worker lacks it (its keys: %s); %s. Give every worker a key before any "
                    "encrypts with it (docs/security.md, Rotation)", named, self._own, fate)
