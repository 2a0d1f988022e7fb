"""`python -m emulator`: run the Azure Resource Manager emulator on loopback."""

from __future__ import annotations

import argparse
import ipaddress
import logging
from pathlib import Path

from aiohttp import web

from emulator.app import build_app
from emulator.limits.profile import PROFILES
from emulator.seed import SEED_SUBSCRIPTION
from emulator.settings import LATENCY_PROFILES, EmulatorConfig, LiveSettings


def _loopback(host: str) -> str:
    if host != "localhost":
        try:
            if not ipaddress.ip_address(host).is_loopback:
                raise argparse.ArgumentTypeError(f"{host} is not a loopback address")
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{host} is not an IP address or localhost") from exc
    return host


def parse_args(argv: list[str] | None = None) -> EmulatorConfig:
    parser = argparse.ArgumentParser(prog="python -m emulator", description=__doc__)
    parser.add_argument("--host", type=_loopback, default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8910)
    parser.add_argument("--time-scale", type=float, default=1.0,
                        help="multiplies every built-in delay (0 = instant)")
    parser.add_argument("--latency-profile", choices=LATENCY_PROFILES, default="instant")
    parser.add_argument("--seed", action="store_true", help="create the demo resource group, vnet, subnet")
    parser.add_argument("--faults", type=Path, help="JSON/YAML file with fault rules to load at start")
    parser.add_argument("--throttling", action="store_true",
                        help="enforce ARM's subscription buckets even under --limits none")
    parser.add_argument("--limits", choices=PROFILES, default="none",
                        help="azure: enforce ARM's, the network and the compute provider's request limits")
    parser.add_argument("--index-lag", type=float, default=0.0, help="Resource Graph index lag (seconds)")
    parser.add_argument("--boot-seconds", type=float, default=0.0,
                        help="seconds a VM's guest boots after a (re)start before its agent is Ready")
    parser.add_argument("--subscription", default=SEED_SUBSCRIPTION)
    args = parser.parse_args(argv)
    start = LiveSettings()
    try:
        start.update({"time_scale": args.time_scale, "throttling": args.throttling, "limits": args.limits,
                      "index_lag_s": args.index_lag,
                      "latency_profile": args.latency_profile, "boot_seconds": args.boot_seconds})
    except ValueError as exc:
        parser.error(str(exc))
    return EmulatorConfig(host=args.host, port=args.port, subscription=args.subscription, seed=args.seed,
                          faults_file=args.faults, start=start)


def main(argv: list[str] | None = None) -> None:
    config = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    print(f"azmc emulator listening on http://{config.host}:{config.port}", flush=True)
    web.run_app(build_app(config), host=config.host, port=config.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
