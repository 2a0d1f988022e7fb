"""Which codec keys the installation's other live workers hold, as this worker last saw them (workers/replicas.py
reads them from the workers' identities every REFRESH_S). A worker that lacks the key of a payload leaves the
payload to one of them (its workflow task fails, and Temporal hands it out again) instead of refusing it; a key
no live worker holds is refused, as a payload nobody could read (workflows/refusals.py)."""


class KeyHolders:
    def __init__(self) -> None:
        self._held: frozenset[str] = frozenset()

    def update(self, key_ids: frozenset[str]) -> None:
        self._held = key_ids

    def hold(self, key_id: str) -> bool:
        return key_id in self._held
