"""custom_data / user_data: Azure's 64 KB limit named with the field, never quoted, never in repr; a change
of either needs a new VM; the VM body carries them base64-encoded (pure)."""

import base64

import pytest
from pydantic import ValidationError

from activities.vm_body import build_vm
from models.spec import MachineSpec
from models.spec_changes import refusal
from tests.workflows.helpers import spec_dict

SECRET = "#cloud-config\nwrite_files: [{path: /etc/token, content: j01n-t0ken}]\n"


def spec(**changes: object) -> MachineSpec:
    return MachineSpec.model_validate(spec_dict(**changes))


@pytest.mark.parametrize("field", ["custom_data", "user_data"])
def test_over_64_kb_is_refused_naming_field_and_limit_not_the_value(field: str) -> None:
    with pytest.raises(ValidationError) as caught:
        spec(**{field: "j01n-t0ken" + "x" * 65530})
    (error,) = caught.value.errors()
    assert error["loc"] == (field,)
    assert f"{field} is 65540 bytes" in error["msg"] and "at most 65535 bytes (64 KB) before base64" in error["msg"]
    assert "j01n-t0ken" not in error["msg"]
    spec(**{field: "x" * 65535})  # exactly Azure's limit is fine


def test_multibyte_text_counts_in_bytes() -> None:
    with pytest.raises(ValidationError, match="custom_data is 65536 bytes"):
        spec(custom_data="é" * 32768)


def test_secrets_stay_out_of_repr_and_are_kept_verbatim() -> None:
    made = spec(custom_data=SECRET, user_data=" token \n")
    assert made.custom_data == SECRET and made.user_data == " token \n"  # no whitespace stripping
    assert "j01n-t0ken" not in repr(made) and "token" not in str(made)


def test_vm_body_carries_them_base64_encoded() -> None:
    body = build_vm(spec(custom_data=SECRET, user_data="labels"), "/nic", {}).as_dict()
    assert base64.b64decode(body["properties"]["osProfile"]["customData"]).decode() == SECRET
    assert base64.b64decode(body["properties"]["userData"]) == b"labels"
    plain = build_vm(spec(), "/nic", {}).as_dict()
    assert "customData" not in plain["properties"]["osProfile"] and "userData" not in plain["properties"]


@pytest.mark.parametrize("field", ["custom_data", "user_data"])
def test_a_change_needs_a_new_vm_and_the_refusal_quotes_no_secret(field: str) -> None:
    reason = refusal(spec(**{field: SECRET}), spec(**{field: SECRET + "more"}))
    assert reason.startswith(f"{field} cannot change on a running machine")
    assert "bootstrap data when it is created" in reason and "j01n-t0ken" not in reason
