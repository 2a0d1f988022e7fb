"""The scale-out bench's table (bench/scale_out.py): the rate with 1, 2, 3 workers and what bounded it, then the
fleet's rows."""

import os
from typing import Any

from bench.results_file import row

# How long the killed worker stays down before it is started again.
RESTART_AFTER_S = 10.0


def rate_rows(rate: dict[str, Any]) -> list[dict[str, Any]]:
    """Each worker count's best round (as bench.lifecycle), every round beside it, and what bounds the rate."""
    by_count: dict[int, list[dict[str, Any]]] = {}
    for batch in rate["batches"]:
        by_count.setdefault(batch["workers"], []).append(batch)
    best = {k: max(batches, key=lambda batch: batch["rate"]) for k, batches in by_count.items()}
    rows = []
    for k, top in best.items():
        ours = sum(top["cpu"].values()) / top["seconds"]
        rows.append(row(f"lifecycle rate, {k} worker(s)", round(top["rate"], 1), "machines/s", None,
                        None if k == 1 else f"1 worker {best[1]['rate']:.1f}/s",
                        f"best of {len(by_count[k])} rounds of {rate['batch']} created -> Running -> deleted (all: "
                        + ", ".join(f"{batch['rate']:.1f}" for batch in by_count[k]) + "/s), Azure's budgets lifted; "
                        f"cores: {bound_by(top)}, ours {ours:.2f}"))
    last = max(best)
    rows.append(row(f"lifecycle rate, {last} workers / 1", round(best[last]["rate"] / best[1]["rate"], 2), "x", None,
                    None, f"bound by {bound_by(best[last])}"))
    return rows


def bound_by(batch: dict[str, Any]) -> str:
    """What held a batch back: the machine's cores when they were nearly all busy (whoever used them), else the busiest
    of the bench's processes."""
    seconds, cores = batch["seconds"], _cores()
    busiest = max(batch["cpu"], key=batch["cpu"].get)
    process = f"{busiest} {batch['cpu'][busiest] / seconds:.2f}"
    if batch["machine_busy_cores"] >= 0.9 * cores:
        return f"the machine's {cores} cores ({batch['machine_busy_cores']:.2f} busy; the most of ours: {process})"
    return f"{process} of the machine's {cores} ({batch['machine_busy_cores']:.2f} busy)"


def _cores() -> int:
    return os.cpu_count() or 1


def _asked_again(failed: int) -> str:
    if not failed:
        return "every one answered the crowd's ask"
    return (f"{failed:,} failed the crowd's ask (an evicted machine's replay starved past the SDK's 2 s deadlock "
            "limit) and were asked again, one at a time")


def fleet_rows(fleet: dict[str, Any]) -> list[dict[str, Any]]:
    n, w, t = fleet["machines"], fleet["workers"], fleet["timings"]
    setup = (f"{fleet['singles']:,} machines + a pool of {fleet['pool']:,}, {w} workers, emulator --limits azure at "
             f"x{fleet['speed']:g}")
    expected = fleet["singles"] * int(fleet["hold_s"] // fleet["check_s"])
    rss = ", ".join(f"{mib:.0f}" for mib in fleet["peak_rss_mib"])
    return [
        row(f"fleet {n:,} up, a worker SIGKILLed mid-run", round(t["up"]), "s", None, None,
            f"{setup}; the worker killed once half were Running, back {RESTART_AFTER_S:.0f} s later; its requests "
            f"take {fleet['up_limit_s']:.0f} s at azmc's paces ({fleet['up_budget']})"),
        row(f"fleet {n:,}: machines not answering `status`", fleet["asked"] - fleet["answered"], "machines", "0", None,
            f"all {fleet['asked']:,} open asked, 100 at a time, in {fleet['query_s']:.1f} s; "
            f"p99 {fleet['p99_ms']:.0f} ms; " + _asked_again(fleet.get("asked_again", 0))),
        row(f"fleet {n:,}: VM reads while holding", fleet["vm_reads_in_hold"], "reads", f">= {expected:,}", None,
            f"each single machine checks its VM every {fleet['check_s']} s; held {fleet['hold_s']:.0f} s"),
        row(f"fleet {n:,}: pool of {fleet['pool']:,} rolled", round(t["roll"]), "s", None, None,
            f"max_surge {fleet['max_surge']}, max_unavailable 0"),
        row(f"fleet {n:,} down", round(t["down"]), "s", None, None, "every machine and the pool deleted"),
        row(f"fleet {n:,}: 429s, {w} workers", fleet["throttled"], "answers", "0", None,
            "Azure's budgets held across the workers: the server paces the writes' queues, each worker sends its share "
            f"of ARM's; {fleet['throttled_by_operation'] or 'none'}"),
        row(f"fleet {n:,}: workflow task failures", fleet["task_failures"], "failures", "0", None,
            "every worker's SDK metrics, the killed one's read before the kill: "
            f"{fleet.get('task_failure_labels') or 'none'}; failed tasks in the histories, the server's flow control "
            "included (UNHANDLED_COMMAND: a close met a new signal; FORCE_CLOSE_COMMAND: over 100 buffered): "
            f"{fleet.get('task_failures_in_histories') or 'none'}"),
        row(f"fleet {n:,}: left after delete", fleet["open_after"] + fleet["left"], "items", "0", None,
            f"{fleet['open_after']} machine workflows open, {fleet['left']} VMs, NICs or disks in Azure"),
        row(f"fleet {n:,}: worker peak RSS", round(max(fleet["peak_rss_mib"])), "MiB", None, None,
            f"each worker: {rss} MiB" + (f", caching up to {fleet['cache']:,} machines" if "cache" in fleet else "")),
    ]
