"""`make demo` runs `azmc demo`; without a TTY it is non-interactive, and exits 0 only with zero leftovers."""

import subprocess
import sys

from cli.processes import free_port, port_is_free
from tests.e2e.stack import PYTHONPATH, ROOT


def test_demo_non_interactive_on_free_ports_ends_with_zero_leftovers(tmp_path) -> None:  # type: ignore[no-untyped-def]
    ports = {flag: free_port() for flag in ("--temporal-port", "--ui-port", "--emulator-port", "--metrics-port",
                                                    "--codec-port")}
    argv = [sys.executable, "-m", "cli", "demo", "--non-interactive", "--state-dir", str(tmp_path / ".azmc"),
            "--time-scale", "0.02"]  # fmt: skip
    for flag, port in ports.items():
        argv += [flag, str(port)]
    done = subprocess.run(argv, cwd=ROOT, env={**PYTHONPATH, "PATH": "/usr/bin:/bin"}, capture_output=True,
                          text=True, timeout=180)  # fmt: skip
    output = done.stdout
    assert done.returncode == 0, f"{output}\n{done.stderr}"
    # The scenario really happened: capacity failure, NIC refused, recovery, everything deleted.
    assert "CapacityExhausted" in output and "AllocationFailed" in output  # from the unlucky machine's history
    assert "NicReservedForAnotherVm" in output
    assert output.count(" Running ") >= 4 and output.count(" Deleted ") >= 4
    assert "emulator: 0 resources left (zero leftovers)" in output
    assert "virtualMachines.put" in output  # the ARM request counts
    assert f"http://localhost:{ports['--ui-port']}/namespaces/default/workflows" in output
    # The stack it started is gone: every port is free again.
    assert all(port_is_free(port) for port in ports.values())
