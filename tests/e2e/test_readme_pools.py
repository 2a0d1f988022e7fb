"""The README's pool commands for the plain `temporal` CLI, run as written against a real dev server, emulator and
`azmc worker` process (its `azmc` block: tests/cli/test_cli_pool_commands.py)."""

import json

from models.naming import POOL_TAG
from tests.e2e.readme import commands
from tests.e2e.stack import ROOT, Stack, wait_until
from tests.e2e.test_readme import _refused, _run


def _pool_resources(stack: Stack, pool: str) -> list[str]:
    return [r["name"] for r in stack.emulator.control.resources() if (r.get("tags") or {}).get(POOL_TAG) == pool]


def _status(stack: Stack, query: list[str]) -> dict:
    return json.loads(_run(query, stack).split("QueryResult", 1)[1])


def _ready(stack: Stack, query: list[str], replicas: int) -> bool:
    status = _status(stack, query)
    return status["replicas"] == status["ready"] == len(status["machines"]) == replicas


def test_pool_with_the_temporal_cli_as_in_the_readme(stack: Stack) -> None:
    start, scale, query, signal, result = commands("pool-temporal-cli")
    document = json.loads((ROOT / start[start.index("--input-file") + 1]).read_text())
    wf_id = start[start.index("--workflow-id") + 1]
    assert wf_id == f"pool/{document['resource_group']}/{document['name']}" and document["kind"] == "MachinePool"

    assert wf_id in _run(start, stack)
    assert "already running" in _refused(start, stack)
    wait_until(lambda: _ready(stack, query, document["replicas"]), 60, "the pool's machines to be Running")
    # The same pool as YAML through `azmc apply`: the pool knows its own template (no spurious rollout).
    again = _run(["azmc", "apply", "-f", "examples/pool.yaml"], stack)
    assert "pool azmc-demo/web unchanged" in again, again
    replicas = json.loads(scale[scale.index("--input") + 1])["replicas"]
    answer = _run(scale, stack)  # the update answers at once with the pool's status
    assert f" replicas:{replicas} " in answer and "target_revision:" in answer, answer
    wait_until(lambda: _ready(stack, query, replicas), 60, f"{replicas} machines Running")
    status = _status(stack, query)
    names = sorted(m["name"] for m in status["machines"])
    assert all(name.startswith(f"{document['name']}-") for name in names)
    assert sorted(n for n in _pool_resources(stack, document["name"]) if n in names) == names  # their VMs
    assert {m["revision"] for m in status["machines"]} == {status["target_revision"]}

    assert "succeeded" in _run(signal, stack).lower()
    final = _run(result, stack)  # blocks until every machine is deleted and the pool completed
    assert "COMPLETED" in final and '"phase":"Deleted"' in final.replace(" ", "")
    assert _pool_resources(stack, document["name"]) == []
