"""Control-API entries (capacity, quota) that tests add, list and remove by id: one shape for both."""

import itertools
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

Entry = TypeVar("Entry", bound=BaseModel)


class Entries(Generic[Entry]):
    """Entries of one kind. `add_raw` validates a request body as `rule_type` (refusing unknown fields,
    ids included) and keeps it as `entry_type`, which adds the id given here and a hit count."""

    def __init__(self, rule_type: type[BaseModel], entry_type: type[Entry], id_prefix: str) -> None:
        self._entries: dict[str, Entry] = {}
        self._rule_type, self._entry_type = rule_type, entry_type
        self._prefix = id_prefix
        self._ids = itertools.count(1)

    def add_raw(self, raw: Any) -> Entry:
        rule = self._rule_type.model_validate(raw)
        entry_id = f"{self._prefix}-{next(self._ids)}"
        entry = self._entry_type(id=entry_id, **rule.model_dump())
        self._entries[entry_id] = entry
        return entry

    def list(self) -> list[dict[str, Any]]:
        return [e.model_dump() for e in self._entries.values()]

    def remove(self, entry_id: str) -> bool:
        return self._entries.pop(entry_id, None) is not None

    def clear(self) -> None:
        self._entries.clear()
