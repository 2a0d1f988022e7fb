"""CarriedShape (workflows/carried.py): which version a state is, and how each version becomes this code's."""

import pytest
from pydantic import BaseModel, ValidationError

from workflows.carried import CarriedShape


class Now(BaseModel):
    kind: str = ""
    name: str
    size: int


def _v1_to_v2(value: dict) -> dict:
    return {key: item for key, item in value.items() if key != "label"} | {"name": value["label"]}


def _v2_to_v3(value: dict) -> dict:
    return value | {"size": 1}


SHAPE = CarriedShape("test.state", Now, upgrades=(_v1_to_v2, _v2_to_v3), unmarked=1)


def test_the_version_comes_from_the_kind_or_its_absence() -> None:
    assert SHAPE.kind == "test.state/v3"
    assert SHAPE.version_of({"kind": "test.state/v2"}) == 2
    assert SHAPE.version_of({"label": "x"}) == 1  # before kinds
    assert SHAPE.version_of({"kind": "other.state/v2"}) is None
    assert SHAPE.version_of({"kind": "test.state/v0"}) is None
    assert SHAPE.version_of({"kind": "MachinePool"}) is None
    assert SHAPE.version_of(["test.state/v2"]) is None
    assert CarriedShape("strict", Now).version_of({"name": "x"}) is None  # without `unmarked`, a kind is needed


def test_each_older_version_is_upgraded_in_order() -> None:
    assert SHAPE.decode({"label": "a"}) == Now(kind="test.state/v3", name="a", size=1)
    assert SHAPE.decode({"kind": "test.state/v2", "name": "b"}) == Now(kind="test.state/v3", name="b", size=1)
    assert SHAPE.decode({"kind": "test.state/v3", "name": "c", "size": 5}).size == 5


def test_a_newer_version_keeps_what_this_code_knows() -> None:
    """A rollback: the state a newer release carried is read as far as its fields are known."""
    newer = {"kind": "test.state/v4", "name": "d", "size": 2, "added_later": True}
    assert SHAPE.decode(newer) == Now(kind="test.state/v3", name="d", size=2)


def test_a_state_that_is_not_one_is_refused() -> None:
    with pytest.raises(ValueError, match=r"not a carried test\.state"):
        SHAPE.decode({"kind": "other/v1"})
    with pytest.raises(ValidationError):
        SHAPE.decode({"kind": "test.state/v3", "name": "e"})  # size missing
