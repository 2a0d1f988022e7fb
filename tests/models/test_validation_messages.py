"""What pydantic refused, said one way everywhere (CLI, settings, workflow failures): every field named."""

from typing import Any

import pytest
from pydantic import ValidationError

from models.spec import MachineSpec
from models.validation import describe_validation_error
from tests.workflows.helpers import spec_dict


def _refused(value: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as error:
        MachineSpec.model_validate(value)
    return describe_validation_error(error.value)


def test_every_refused_field_is_named_in_words_a_user_can_act_on() -> None:
    without_subnet = {k: v for k, v in spec_dict(colour="blue").items() if k != "subnet_id"}
    text = _refused(without_subnet)
    assert text.startswith("invalid MachineSpec: ")
    assert "colour: unknown field (see `azmc schema`" in text and "subnet_id: required field is missing" in text


def test_a_rule_of_the_spec_reads_without_pydantic_s_prefix() -> None:
    text = _refused(spec_dict(data_disks=[{"lun": 1, "size_gb": 8}, {"lun": 1, "size_gb": 16}]))
    assert "duplicate lun 1" in text and "Value error" not in text
