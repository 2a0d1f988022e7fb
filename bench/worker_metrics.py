"""A worker's Prometheus metrics as the benches read them: each sample's name, labels and value."""

import re
import urllib.request
from dataclasses import dataclass

_SAMPLE = re.compile(r"^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class Sample:
    name: str
    labels: dict[str, str]
    value: float


def samples(text: str) -> list[Sample]:
    """The samples of Prometheus' text format; comments (HELP, TYPE) and blank lines skipped."""
    found = []
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match is None:
            continue
        name, labels, value = match.groups()
        found.append(Sample(name, dict(_LABEL.findall(labels or "")), float(value)))
    return found


def read_samples(url: str, timeout_s: float = 10) -> list[Sample]:
    """The worker's samples now; raises OSError when its endpoint does not answer."""
    with urllib.request.urlopen(url, timeout=timeout_s) as response:
        return samples(response.read().decode())
