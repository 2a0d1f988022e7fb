"""free_port: the port a test or bench gives a server it starts a moment later. Picked where the kernel hands out no
port of its own, so another process's connection cannot take it in between ("address already in use")."""

import socket

from cli.processes import EPHEMERAL_PORTS, free_port


def test_a_free_port_is_below_the_kernels_ephemeral_range_and_bindable() -> None:
    low = int(EPHEMERAL_PORTS.read_text().split()[0])
    for _ in range(20):
        port = free_port()
        assert 1024 <= port < low
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", port))  # free when given
