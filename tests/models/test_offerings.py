"""Offerings: the order a machine tries them in, the spec of one offering, and what the memory skips."""

from datetime import UTC, datetime, timedelta

from models.offerings import Availability, Offering, Refusal, availability, narrowed, offering_in_use, offerings_of
from models.spec import MachineSpec, Priority
from tests.models.test_spec import SUBSCRIPTION, spec_dict

NOW = datetime(2026, 1, 1, 12, tzinfo=UTC)


def spec(**overrides: object) -> MachineSpec:
    data = spec_dict(**overrides)
    data.pop("vm_size")
    return MachineSpec.model_validate({"vm_sizes": ["D4", "D8"], "zones": ["1", "2"], **data})


def names(offerings: list[Offering]) -> list[str]:
    return [o.describe() for o in offerings]


def test_size_first_then_zone_and_subscription_from_the_subnet() -> None:
    offerings = offerings_of(spec())
    assert names(offerings) == ["D4 in zone 1", "D4 in zone 2", "D8 in zone 1", "D8 in zone 2"]
    assert {(o.location, o.subscription) for o in offerings} == {("westeurope", SUBSCRIPTION)}


def test_spot_falls_back_to_regular_only_with_the_flag() -> None:
    assert names(offerings_of(spec(priority="Spot", spot={}, zones=[""]))) == ["D4 regional (Spot)",
                                                                               "D8 regional (Spot)"]
    both = offerings_of(spec(priority="Spot", spot={"fallback_to_regular": True}, zones=[""]))
    assert names(both) == ["D4 regional (Spot)", "D8 regional (Spot)", "D4 regional", "D8 regional"]


def test_narrowed_spec_asks_for_exactly_one_offering() -> None:
    spot = spec(priority="Spot", spot={"fallback_to_regular": True, "max_price": 0.2})
    regular = Offering(vm_size="D8", zone="2", priority=Priority.REGULAR, location="westeurope",
                       subscription=SUBSCRIPTION)
    one = narrowed(spot, regular)
    assert (one.vm_size, one.zone, one.priority, one.spot) == ("D8", "2", Priority.REGULAR, None)
    assert offering_in_use(one) == regular
    assert narrowed(spot, offerings_of(spot)[0]).spot == spot.spot  # Spot keeps its settings


def refusal(size: str, zone: str, priority: str, minutes: int, code: str = "ZonalAllocationFailed") -> Refusal:
    return Refusal(vm_size=size, zone=zone, priority=priority, code=code, refused_at=NOW - timedelta(minutes=12),
                   until=NOW + timedelta(minutes=minutes))


def test_availability_skips_matching_refusals_and_names_the_earliest_end() -> None:
    refusals = [refusal("D4", "1", "*", 48), refusal("d8", "*", "Regular", 5, "SkuNotAvailable"),
                refusal("D8", "2", "Regular", -1)]  # expired: ignored
    answer = availability(offerings_of(spec()), refusals, NOW)
    assert names(answer.available) == ["D4 in zone 2"]
    assert [s.describe(NOW) for s in answer.skipped] == [
        "D4 in zone 1: ZonalAllocationFailed 12m ago, retry after 48m",
        "D8 in zone 1: SkuNotAvailable 12m ago, retry after 5m",
        "D8 in zone 2: SkuNotAvailable 12m ago, retry after 5m",
    ]
    assert answer.earliest == NOW + timedelta(minutes=5)
    assert Availability().earliest is None


def test_a_refusal_for_spot_does_not_skip_regular() -> None:
    fallback = spec(priority="Spot", spot={"fallback_to_regular": True}, vm_sizes=["D4"], zones=[""])
    answer = availability(offerings_of(fallback), [refusal("*", "*", "Spot", 30, "QuotaExceeded")], NOW)
    assert names(answer.available) == ["D4 regional"]
