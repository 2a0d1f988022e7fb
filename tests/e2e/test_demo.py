"""`make demo` runs `azmc demo`; without a TTY it is non-interactive, and exits 0 only with zero leftovers.

The run is checked against the README's demo paragraph itself: every phase, Azure error and signal it
names in `code` must happen to the unlucky machine, the phases in the order the paragraph tells them,
so the paragraph and the demo cannot drift apart.
"""

import re
import subprocess
import sys

from cli.processes import free_port, port_is_free
from models.status import Phase
from tests.e2e.readme import code_spans, paragraph
from tests.e2e.stack import PYTHONPATH, ROOT

_COMMANDS = ("make ", "azmc ")  # spans naming how to run it, not what happens
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# A progress line of the non-interactive run: "  12.3s demo-ab12-2     CrashLoopBackOff Create Failed: ..."
_EVENTS_TITLE, _REQUESTS_TITLE = "Azure errors met on the way", "ARM requests the emulator served"
_PROGRESS = re.compile(r"^\s*\d+\.\ds (?P<name>\S+)\s+(?P<phase>\S+)")


def _run_demo(ports: dict[str, int], state_dir: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "cli", "demo", "--non-interactive", "--state-dir", state_dir,
            "--time-scale", "0.02"]  # fmt: skip
    for flag, port in ports.items():
        argv += [flag, str(port)]
    return subprocess.run(argv, cwd=ROOT, env={**PYTHONPATH, "PATH": "/usr/bin:/bin"}, capture_output=True,
                          text=True, timeout=180)  # fmt: skip


def _phases_of(name: str, output: str) -> list[str]:
    """The machine's phases as the run showed them, repeats folded."""
    phases: list[str] = []
    for line in output.splitlines():
        match = _PROGRESS.match(line)
        if match and match["name"] == name and (not phases or phases[-1] != match["phase"]):
            phases.append(match["phase"])
    return phases


def _is_subsequence(wanted: list[str], seen: list[str]) -> bool:
    remaining = iter(seen)
    return all(any(item == phase for phase in remaining) for item in wanted)


def _assert_the_readme_story(output: str) -> None:
    story = paragraph("`make demo` runs `azmc demo`")
    count = _NUMBERS[re.search(r"applies (\w+) machines", story)[1]]
    unlucky = re.search(rf"applying {count} machines; (\S+)'s VM creation will fail", output)
    assert unlucky is not None, output
    name = unlucky[1]
    claims = [span for span in code_spans(story) if not span.startswith(_COMMANDS)]
    phases = [claim for claim in claims if claim in set(Phase)]
    events = [claim for claim in claims if claim not in phases]
    assert phases and events, f"the README's demo paragraph names no phase or event in `code`: {story}"
    seen = _phases_of(name, output)
    assert _is_subsequence(phases, seen), f"README tells {phases}, the run showed {seen}"
    # Azure's errors (from the workflow histories) and the demo's own moves: the summary's section of them,
    # whose lines name the machine (rich may wrap a long one).
    section = output[output.index(_EVENTS_TITLE) : output.index(_REQUESTS_TITLE)]
    lines = " ".join(section.split()).split(f" {name}: ")[1:]
    for event in events:
        assert any(event in line for line in lines), f"README names {event!r}; the run's summary does not:\n{section}"


def test_demo_non_interactive_on_free_ports_ends_with_zero_leftovers(tmp_path) -> None:
    ports = {flag: free_port() for flag in ("--temporal-port", "--ui-port", "--emulator-port", "--metrics-port",
                                            "--codec-port")}
    done = _run_demo(ports, str(tmp_path / ".azmc"))
    output = done.stdout
    assert done.returncode == 0, f"{output}\n{done.stderr}"
    _assert_the_readme_story(output)
    assert "CapacityExhausted" in output  # the classification, from the unlucky machine's history
    assert output.count(" Running ") >= 4 and output.count(" Deleted ") >= 4
    assert "emulator: 0 resources left (zero leftovers)" in output
    assert "virtualMachines.put" in output  # the ARM request counts
    assert f"http://localhost:{ports['--ui-port']}/namespaces/default/workflows" in output
    # The stack it started is gone: every port is free again.
    assert all(port_is_free(port) for port in ports.values())
