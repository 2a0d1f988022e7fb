"""docker-compose.yml (no Docker engine here): the production shape is complete and consistent with the CLI."""

import re
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
from cli.processes import temporal_binary
from models.pace import Budget, budget_task_queue
from models.search_attributes import ALL_KEYS, type_name
from workers.settings import TASK_QUEUE

ROOT = Path(__file__).parents[1]
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES: dict[str, Any] = COMPOSE["services"]
ONE_SHOTS = ("setup-schema", "create-namespace", "register-search-attributes")  # run to completion, in order


def _command(service: str) -> list[str]:
    command = SERVICES[service]["command"]
    return shlex.split(command) if isinstance(command, str) else list(command)


def _depends(service: str) -> dict[str, str]:
    depends = SERVICES[service].get("depends_on", {})
    return {name: spec["condition"] for name, spec in depends.items()}


def _tag(service: str) -> str:
    return SERVICES[service]["image"].rpartition(":")[2]


def _release(tag: str) -> tuple[int, ...]:
    assert re.fullmatch(r"\d+\.\d+\.\d+", tag), f"not a release tag: {tag}"
    return tuple(int(part) for part in tag.split("."))


def _script(service: str) -> str:
    """The shell text a one-shot runs: compose turns $$ into $ (a lone $ would be compose's own variable)."""
    assert SERVICES[service]["entrypoint"] == ["/bin/sh", "-c"]
    (text,) = SERVICES[service]["command"]
    assert "$" not in text.replace("$$", ""), f"{service}: a $ compose would substitute"
    return text.replace("$$", "$")


# Stand-ins for the admin-tools image's commands: each logs its arguments, a line a call, and answers as the
# test's environment says. `sleep` returns at once, so a script's waits cost nothing.
_FAKE_TEMPORAL = r"""#!/bin/sh
printf '%s\n' "$*" >> "$LOG"
calls() { grep -c "^$1" "$LOG"; }
case "$*" in
  "operator cluster health"*) [ "$(calls 'operator cluster health')" -gt "${UNHEALTHY_CALLS:-0}" ] ;;
  "operator namespace describe"*) [ -n "${NAMESPACE_EXISTS:-}" ] ;;
  "operator search-attribute list"*)
    [ "$(calls 'operator search-attribute list')" -gt "${UNLISTED_CALLS:-0}" ] && printf '%s Keyword\n' ${EXISTING:-} ;;
esac
"""
_FAKE_SQL_TOOL = r"""#!/bin/sh
printf '%s\n' "$*" >> "$LOG"
case "$*" in *"${FAIL_ON:-no such step}"*) exit 1 ;; esac
"""


def _run(service: str, tmp_path: Path, **env: str) -> tuple[int, list[str]]:
    """Run a one-shot's script under sh with the stand-ins first on PATH: its exit code and the calls made."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in (("temporal", _FAKE_TEMPORAL), ("temporal-sql-tool", _FAKE_SQL_TOOL), ("sleep", "#!/bin/sh\n")):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "calls.log"
    log.write_text("")
    done = subprocess.run(["sh", "-c", _script(service)], capture_output=True, text=True, timeout=60,
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin", "LOG": str(log), **env})  # fmt: skip
    return done.returncode, log.read_text().splitlines()


def test_services_and_images() -> None:
    expected = {"postgresql", "temporal", *ONE_SHOTS, "temporal-ui", "worker", "emulator"}
    assert set(SERVICES) >= expected
    assert SERVICES["postgresql"]["image"].startswith("postgres:")
    assert SERVICES["temporal"]["image"].startswith("temporalio/server:")
    for one_shot in ONE_SHOTS:
        assert SERVICES[one_shot]["image"].startswith("temporalio/admin-tools:")
    assert SERVICES["temporal-ui"]["image"].startswith("temporalio/ui:")
    built = {service["image"] for service in SERVICES.values() if "build" in service}
    for service in SERVICES.values():
        image = service.get("image", "")
        # Third-party images are pinned; azmc's are built from this repository's Dockerfile.
        assert image in built or (":" in image and not image.endswith(":latest")), f"unpinned {image}"
    assert SERVICES["worker-local"]["image"] == SERVICES["worker"]["image"]


def test_server_is_a_release_with_worker_versioning() -> None:
    # Worker Versioning is GA from Temporal Server 1.32: azmc workers run as versions of a Worker Deployment.
    assert _release(_tag("temporal")) >= (1, 32, 0)


def test_admin_tools_are_the_servers_release() -> None:
    """The schema the one-shots install and the CLI they call are those of the server that runs."""
    for one_shot in ONE_SHOTS:
        assert SERVICES[one_shot]["image"] == f"temporalio/admin-tools:{_tag('temporal')}", one_shot


def test_server_and_ui_are_the_dev_servers_release() -> None:
    """The stack runs the Temporal Server and UI that the `temporal` CLI's dev server, which the tests and
    `azmc dev` run, embeds."""
    version = subprocess.run([temporal_binary(), "--version"], capture_output=True, text=True, timeout=30).stdout
    shipped = re.search(r"\(Server (\S+), UI (\S+)\)", version)
    assert shipped, version
    assert (_tag("temporal"), _tag("temporal-ui")) == shipped.groups()


def test_temporal_uses_postgresql() -> None:
    env = SERVICES["temporal"]["environment"]
    assert env["DB"].startswith("postgres") and env["POSTGRES_SEEDS"] == "postgresql"
    assert _depends("temporal") == {"postgresql": "service_healthy", "setup-schema": "service_completed_successfully"}


def test_schema_setup_reaches_the_servers_database() -> None:
    assert _depends("setup-schema") == {"postgresql": "service_healthy"}
    server, tool = SERVICES["temporal"]["environment"], SERVICES["setup-schema"]["environment"]
    # temporal-sql-tool's variable: the server's
    same = {"SQL_PLUGIN": "DB", "SQL_HOST": "POSTGRES_SEEDS", "SQL_PORT": "DB_PORT", "SQL_USER": "POSTGRES_USER",
            "SQL_PASSWORD": "POSTGRES_PWD"}  # fmt: skip
    assert {name: tool[name] for name in same} == {name: server[theirs] for name, theirs in same.items()}


def test_schema_setup_creates_or_upgrades_both_databases(tmp_path: Path) -> None:
    server = SERVICES["temporal"]["environment"]
    databases = {server.get("DBNAME", "temporal"): "temporal", server.get("VISIBILITY_DBNAME", "temporal_visibility"):
                 "visibility"}  # fmt: skip
    code, calls = _run("setup-schema", tmp_path)
    assert code == 0
    # Each step is a no-op once done (create-database skips a database that exists, setup-schema one past
    # 0.0, update-schema applies only the versions newer than the database's), so a restart upgrades in place.
    assert calls == [call for db, schema in databases.items() for call in (
        f"--db {db} create-database", f"--db {db} setup-schema -v 0.0",
        f"--db {db} update-schema -d /etc/temporal/schema/postgresql/v12/{schema}/versioned")]  # fmt: skip


def test_schema_setup_stops_at_a_failed_step(tmp_path: Path) -> None:
    code, calls = _run("setup-schema", tmp_path, FAIL_ON="temporal setup-schema")
    assert code != 0 and calls[-1] == "--db temporal setup-schema -v 0.0"


def test_server_reads_its_dynamic_config_from_the_repository() -> None:
    """The server image ships no dynamic config file, and the server does not start without one."""
    server = SERVICES["temporal"]
    source, target, mode = next(v.split(":") for v in server["volumes"] if v.startswith("./deploy/"))
    assert target == server["environment"]["DYNAMIC_CONFIG_FILE_PATH"] and mode == "ro"
    values = yaml.safe_load((ROOT / source).read_text())
    assert values and all(isinstance(v, list) and all("value" in c for c in v) for v in values.values())


def test_each_paced_queue_has_one_partition() -> None:
    """A queue's rate limit is split among its partitions: with several, the writes go slower than the budget."""
    values = yaml.safe_load((ROOT / "deploy/temporal-dynamic-config.yaml").read_text())
    paced = {budget_task_queue(TASK_QUEUE, budget) for budget in Budget}
    for key in ("matching.numTaskqueueReadPartitions", "matching.numTaskqueueWritePartitions"):
        assert {c["constraints"]["taskQueueName"] for c in values[key] if c["value"] == 1} == paced, key


def test_server_health_check_needs_no_temporal_cli() -> None:
    """The server image holds the server and busybox: no `temporal` to ask. The check dials 127.0.0.1, which
    the server listens on only when bound to every interface."""
    server = SERVICES["temporal"]
    assert server["healthcheck"]["test"][:2] == ["CMD", "nc"] and "127.0.0.1" in server["healthcheck"]["test"]
    assert server["environment"]["BIND_ON_IP"] == "0.0.0.0"


def test_one_shots_run_once() -> None:
    for one_shot in ONE_SHOTS:
        assert SERVICES[one_shot]["restart"] == "no" and "healthcheck" not in SERVICES[one_shot], one_shot


@pytest.mark.parametrize("exists", [False, True])
def test_namespace_is_created_once_temporal_serves(tmp_path: Path, exists: bool) -> None:
    namespace = COMPOSE["x-worker-environment"]["AZMC_TEMPORAL_NAMESPACE"]
    code, calls = _run("create-namespace", tmp_path, UNHEALTHY_CALLS="3", NAMESPACE_EXISTS="yes" if exists else "")
    assert code == 0
    assert calls[:4] == ["operator cluster health"] * 4  # polled until it answers
    created = [call for call in calls if call.startswith("operator namespace create")]
    assert created == ([] if exists else [f"operator namespace create --namespace {namespace} --retention 24h"])
    assert f"operator namespace describe --namespace {namespace}" in calls


def test_namespace_creation_gives_up_when_temporal_never_serves(tmp_path: Path) -> None:
    code, calls = _run("create-namespace", tmp_path, UNHEALTHY_CALLS="1000")
    assert code != 0 and set(calls) == {"operator cluster health"}


def test_start_order_waits_for_health_and_search_attributes() -> None:
    assert _depends("create-namespace") == {"temporal": "service_healthy"}
    after_namespace = {"temporal": "service_healthy", "create-namespace": "service_completed_successfully"}
    assert _depends("register-search-attributes") == after_namespace
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


def test_search_attributes_wait_for_the_namespace_and_add_only_the_missing(tmp_path: Path) -> None:
    namespace = COMPOSE["x-worker-environment"]["AZMC_TEMPORAL_NAMESPACE"]
    present, *missing = ALL_KEYS
    code, calls = _run("register-search-attributes", tmp_path, UNLISTED_CALLS="2", EXISTING=present.name)
    assert code == 0
    assert calls[:3] == [f"operator search-attribute list --namespace {namespace}"] * 3  # until it lists
    created = [call for call in calls if call.startswith("operator search-attribute create")]
    assert sorted(created) == sorted(f"operator search-attribute create --namespace {namespace} --name {key.name} "
                                     f"--type {type_name(key)}" for key in missing)  # fmt: skip


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
    assert worker["build"]["context"] == "." and "target" not in worker["build"]  # the production image
    assert worker["build"]["args"]["LOCK"] == "${AZMC_IMAGE_LOCK:-image}"
    env = worker["environment"]
    assert env["AZMC_TEMPORAL_ADDRESS"] == "temporal:7233"
    assert "AZMC_AZURE_ENDPOINT" not in env  # real Azure through DefaultAzureCredential
    assert "AZMC_AZURE_SUBSCRIPTION_ID" in env and "AZURE_CLIENT_ID" in env


def test_emulator_only_in_the_local_profile_and_reached_over_loopback() -> None:
    assert SERVICES["emulator"]["profiles"] == ["local"]
    assert SERVICES["emulator"]["build"]["target"] == "emulator"  # the worker's image leaves the emulator out
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


def test_the_release_the_production_docs_name_is_the_one_compose_runs() -> None:
    """docs/production.md's Temporal (the Helm chart's images) and this one-host shape run one release, so a schema
    set up by one is the other's."""
    named = set(re.findall(r"Temporal Server (\d+\.\d+\.\d+)", (ROOT / "docs" / "production.md").read_text()))
    assert named == {_tag("temporal")}


def test_the_dockerfile_builds_what_compose_asks() -> None:
    """Each build target and argument compose names is one of the Dockerfile's, and each lock it may take exists."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    stages = re.findall(r"^FROM \S+ AS (\S+)$", dockerfile, re.MULTILINE)
    assert stages[-1] == "worker", "the default target (the last stage) is the production image"
    for name, service in SERVICES.items():
        build = service.get("build")
        if build:
            assert build.get("target", stages[-1]) in stages, name
            assert all(f"ARG {arg}=" in dockerfile for arg in build.get("args", {})), name
    assert (ROOT / "requirements" / "image.txt").is_file() and (ROOT / "requirements" / "image-keyvault.txt").is_file()


# A page, optionally with a section in quotes (`docs/security.md, "Keys"`), or the README's section by name.
_REFERENCE = re.compile(r'(README|docs/[\w-]+\.md)(?:\'s)?(?:,? "([^"]+)"| ([A-Z][\w ]*?) section)?')


def test_the_pages_and_sections_the_comments_name_exist() -> None:
    text = (ROOT / "docker-compose.yml").read_text()
    references = _REFERENCE.findall(text)
    assert len(references) >= 3, references
    for page, quoted, named in references:
        path = ROOT / ("README.md" if page == "README" else page)
        assert path.is_file(), f"docker-compose.yml names {page}, which does not exist"
        section = quoted or named
        if section:
            headings = re.findall(r"^#+ (.+)$", path.read_text(), re.MULTILINE)
            assert section in headings, f'docker-compose.yml names {page}, "{section}": not a section of it'
