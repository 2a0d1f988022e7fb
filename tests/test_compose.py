"""docker-compose.yml (no Docker engine here): the production shape is complete and consistent with the CLI."""

import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from cli.commands import app
from workflows.search_attributes import ALL_KEYS, type_name

ROOT = Path(__file__).parents[1]
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]


def _command(service: str) -> list[str]:
    command = SERVICES[service]["command"]
    return shlex.split(command) if isinstance(command, str) else list(command)


def _depends(service: str) -> dict[str, str]:
    depends = SERVICES[service].get("depends_on", {})
    return {name: spec["condition"] for name, spec in depends.items()}


def test_services_and_images() -> None:
    expected = {"postgresql", "temporal", "register-search-attributes", "temporal-ui", "worker", "emulator"}
    assert set(SERVICES) >= expected
    assert SERVICES["postgresql"]["image"].startswith("postgres:")
    assert SERVICES["temporal"]["image"].startswith("temporalio/auto-setup:")
    assert SERVICES["register-search-attributes"]["image"].startswith("temporalio/admin-tools:")
    assert SERVICES["temporal-ui"]["image"].startswith("temporalio/ui:")
    for service in SERVICES.values():
        image = service.get("image", "")
        # Third-party images are pinned; azmc:latest is the image built from this repository's Dockerfile.
        assert image.startswith("azmc:") or (":" in image and not image.endswith(":latest")), f"unpinned {image}"
    assert SERVICES["worker-local"]["image"] == SERVICES["worker"]["image"]


def test_temporal_uses_postgresql() -> None:
    env = SERVICES["temporal"]["environment"]
    assert env["DB"].startswith("postgres") and env["POSTGRES_SEEDS"] == "postgresql"
    assert _depends("temporal") == {"postgresql": "service_healthy"}


def test_start_order_waits_for_health_and_search_attributes() -> None:
    assert _depends("register-search-attributes") == {"temporal": "service_healthy"}
    assert _depends("temporal-ui") == {"temporal": "service_healthy"}
    for worker in ("worker", "worker-local"):
        assert _depends(worker)["temporal"] == "service_healthy"
        assert _depends(worker)["register-search-attributes"] == "service_completed_successfully"
    assert _depends("worker-local")["emulator"] == "service_healthy"


def test_search_attributes_registered_are_the_workflows() -> None:
    script = " ".join(_command("register-search-attributes"))
    for key in ALL_KEYS:
        assert f"{key.name}:{type_name(key)}" in script
    assert "search-attribute create" in script and '--type "$$type"' in script


def test_ports() -> None:
    assert "127.0.0.1:7233:7233" in SERVICES["temporal"]["ports"]
    assert "127.0.0.1:8080:8080" in SERVICES["temporal-ui"]["ports"]
    assert SERVICES["temporal-ui"]["environment"]["TEMPORAL_ADDRESS"] == "temporal:7233"


def _published_hosts(port: object) -> str:
    """The host address a `ports` entry publishes on ("" = every interface), short or long syntax."""
    if isinstance(port, dict):
        return str(port.get("host_ip", ""))
    parts = str(port).rsplit(":", 2)
    return parts[0] if len(parts) == 3 else ""


def test_nothing_is_published_beyond_loopback() -> None:
    published = [(name, port) for name, service in SERVICES.items() for port in service.get("ports", [])]
    assert published, "Temporal and its UI are published for the operator on this machine"
    for name, port in published:
        assert _published_hosts(port) == "127.0.0.1", f"{name} publishes {port} beyond loopback"
    assert all("network_mode" not in s or s["network_mode"].startswith("service:") for s in SERVICES.values())


@pytest.mark.parametrize("service", ["postgresql", "temporal", "temporal-ui", "worker", "emulator", "worker-local"])
def test_long_running_services_have_health_checks(service: str) -> None:
    check = SERVICES[service]["healthcheck"]
    assert check["test"][0] in ("CMD", "CMD-SHELL") and len(check["test"]) > 1
    assert "interval" in check and "retries" in check


def test_two_worker_replicas_built_from_the_repository() -> None:
    worker = SERVICES["worker"]
    assert worker["deploy"]["replicas"] == 2
    assert worker["build"] == "." and (ROOT / "Dockerfile").is_file()
    env = worker["environment"]
    assert env["AZMC_TEMPORAL_ADDRESS"] == "temporal:7233"
    assert "AZMC_AZURE_ENDPOINT" not in env  # real Azure through DefaultAzureCredential
    assert "AZMC_AZURE_SUBSCRIPTION_ID" in env and "AZURE_CLIENT_ID" in env


def test_emulator_only_in_the_local_profile_and_reached_over_loopback() -> None:
    assert SERVICES["emulator"]["profiles"] == ["local"]
    assert SERVICES["worker-local"]["profiles"] == ["local"]
    assert "profiles" not in SERVICES["worker"]
    # Plain http to Azure only on loopback: the local worker shares the emulator's network namespace.
    assert SERVICES["worker-local"]["network_mode"] == "service:emulator"
    assert SERVICES["worker-local"]["environment"]["AZMC_AZURE_ENDPOINT"].startswith("http://127.0.0.1:")


def _help(subcommand: str) -> str:
    if subcommand == "emulator":  # `azmc emulator` hands its flags to the emulator's own parser
        done = subprocess.run([sys.executable, "-m", "cli", "emulator", "--help"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout
    result = CliRunner().invoke(app, [subcommand, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("service", ["worker", "worker-local", "emulator"])
def test_commands_are_real_cli_commands(service: str) -> None:
    program, subcommand, *args = _command(service)
    assert program == "azmc"
    usage = _help(subcommand)
    for flag in (arg for arg in args if arg.startswith("--")):
        assert flag in usage, f"{service}: {flag} is not a flag of `azmc {subcommand}`"
    if subcommand == "emulator":
        from emulator.__main__ import parse_args

        config = parse_args(args)  # the values are accepted too (e.g. a loopback --host)
        assert config.seed and config.port == 8910


def test_worker_metrics_port_matches_the_health_check() -> None:
    env = COMPOSE["x-worker-environment"]
    assert env["AZMC_METRICS_HOST"] == "0.0.0.0"
    assert f":{env['AZMC_METRICS_PORT']}/metrics" in " ".join(COMPOSE["x-worker-healthcheck"]["test"])


def test_dockerfile_runs_the_cli() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["azmc"]' in dockerfile
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]["find"]["include"]
    for package in (pattern.rstrip("*") for pattern in packages):  # every package the distribution ships
        assert f"COPY {package} ./{package}" in dockerfile


def test_readme_compose_commands_name_real_services() -> None:
    from tests.e2e.readme import commands

    for argv in commands("compose"):
        compose = argv[argv.index("docker") :]
        assert compose[:2] == ["docker", "compose"] and "up" in compose
        if "--profile" in compose:
            profile = compose[compose.index("--profile") + 1]
            assert any(profile in service.get("profiles", []) for service in SERVICES.values())
        if "--scale" in compose:
            service, _, count = compose[compose.index("--scale") + 1].partition("=")
            assert service in SERVICES and count.isdigit()
        env_names = {word.split("=", 1)[0] for word in argv[: argv.index("docker")]}
        used = " ".join(str(value) for value in SERVICES["worker"]["environment"].values())
        assert all(f"${{{name}" in used for name in env_names), env_names
