"""bench/lifecycle.py's measurements, and how they read: the printed summary and the results rows."""

import statistics
from dataclasses import dataclass, field

from bench.bare import BareInput
from bench.histories import HistoryStats
from bench.results_file import row


@dataclass
class Measured:
    machines: int
    rounds: int
    bare_input: BareInput
    seconds: dict[str, list[float]] = field(default_factory=lambda: {"azmc": [], "bare": []})
    cpu: dict[str, dict[str, float]] = field(default_factory=lambda: {"azmc": {}, "bare": {}})
    requests: dict[str, int] = field(default_factory=dict)
    # CPU seconds of the same lifecycles' Azure work alone (bench/azure_work.py): its process's, the emulator's.
    azure_work: dict[str, float] = field(default_factory=dict)
    azmc_history: HistoryStats = field(default_factory=HistoryStats)
    bare_history: HistoryStats = field(default_factory=HistoryStats)
    worker_peak_rss_mib: float = 0.0

    def add_run(self, kind: str, seconds: float, cpu: dict[str, float]) -> None:
        self.seconds[kind].append(seconds)
        for process, used in cpu.items():
            self.cpu[kind][process] = self.cpu[kind].get(process, 0.0) + used

    def add_requests(self, requests: dict[str, int]) -> None:
        for op, n in requests.items():
            self.requests[op] = self.requests.get(op, 0) + n

    def add_azure_work(self, cpu: dict[str, float]) -> None:
        for process, used in cpu.items():
            self.azure_work[process] = self.azure_work.get(process, 0.0) + used

    def azure_work_ms(self) -> float:
        """CPU milliseconds per lifecycle that its Azure work costs, with no engine: the driver's and the emulator's."""
        return sum(self.azure_work.values()) * 1000 / (self.machines * self.rounds)

    def with_azure_work(self) -> float:
        """The ratio a machine would reach if it cost the bare engine plus its Azure work and nothing more: the bare
        engine's CPU a lifecycle over that sum (on shared cores the rate follows CPU)."""
        return self.cpu_ms("bare") / (self.cpu_ms("bare") + self.azure_work_ms())

    def best_rate(self, kind: str) -> float:
        return self.machines / min(self.seconds[kind])

    def median_rate(self, kind: str) -> float:
        return self.machines / statistics.median(self.seconds[kind])

    def paired_ratios(self) -> list[float]:
        """Each round's azmc rate over the bare rate of the same round: a neighbour's load in one round hits
        both of its runs, so their ratio moves less than the best rounds' do."""
        return [bare / azmc for azmc, bare in zip(self.seconds["azmc"], self.seconds["bare"], strict=True)]

    def round_rates(self) -> list[dict[str, float]]:
        """Each round's azmc and bare rates (machines/s), the chart's bars."""
        return [{"azmc": round(self.machines / azmc, 2), "bare": round(self.machines / bare, 2)}
                for azmc, bare in zip(self.seconds["azmc"], self.seconds["bare"], strict=True)]  # fmt: skip

    def cpu_ms(self, kind: str, process: str | None = None) -> float:
        """CPU milliseconds per lifecycle: of one process, or of all of them (None)."""
        used = self.cpu[kind].get(process, 0.0) if process else sum(self.cpu[kind].values())
        return used * 1000 / (self.machines * self.rounds)

    def emulator_core_share(self) -> float:
        """The emulator's CPU during the azmc runs, as a fraction of one core over their wall time."""
        return self.cpu["azmc"].get("emulator", 0.0) / sum(self.seconds["azmc"])

    def emulator_cpu_share(self) -> float:
        """The emulator's part of all CPU the processes used during the azmc runs."""
        return self.cpu["azmc"].get("emulator", 0.0) / max(sum(self.cpu["azmc"].values()), 1e-9)


def _per(stats: HistoryStats, name: str) -> float:
    return round(stats.per(name), 1)


def print_summary(m: Measured) -> None:
    shape = f"{m.bare_input.create_activities} + {m.bare_input.delete_activities} no-op activities around a signal"
    print(f"azmc lifecycle benchmark: {m.machines} machines x {m.rounds} rounds, emulator time scale 0, "
          "one dev server, one worker each")
    for kind in ("azmc", "bare"):
        runs = ", ".join(f"{s:.1f}" for s in m.seconds[kind])
        print(f"  {kind}: rounds took {runs} s: best {m.best_rate(kind):.2f}/s, median {m.median_rate(kind):.2f}/s"
              + (f" ({shape})" if kind == "bare" else ""))
    paired = m.paired_ratios()
    print(f"  ratio azmc / bare: best {m.best_rate('azmc') / m.best_rate('bare'):.2f}, "
          f"median {m.median_rate('azmc') / m.median_rate('bare'):.2f}; round by round (goal: median >= 0.95) "
          + ", ".join(f"{r:.2f}" for r in paired) + f" (median {statistics.median(paired):.2f})")
    for kind in ("azmc", "bare"):
        per = ", ".join(f"{name} {m.cpu_ms(kind, name):.0f}" for name in m.cpu[kind] if m.cpu_ms(kind, name) >= 0.5)
        print(f"  CPU ms per {kind} lifecycle: {per}; total {m.cpu_ms(kind):.0f}")
    for kind, stats in (("azmc", m.azmc_history), ("bare", m.bare_history)):
        print(f"  {kind} history per lifecycle ({stats.workflows} read): {_per(stats, 'events')} events, "
              f"{_per(stats, 'workflow_tasks')} workflow tasks, "
              f"{_per(stats, 'activities_before_signal') + _per(stats, 'activities_after_signal')} activities "
              f"({_per(stats, 'local_activities')} local), {_per(stats, 'upserts')} upserts in "
              f"{_per(stats, 'upsert_tasks')} tasks, "
              f"{_per(stats, 'timers')} timers, {stats.workflow_task_timeouts} task timeouts, "
              f"{stats.workflow_task_failures} task failures")
    polls = m.requests.get("operations.get", 0)
    lifecycles = m.machines * m.rounds
    print(f"  ARM requests per machine: {(sum(m.requests.values()) - polls) / lifecycles:.1f} "
          f"(+ {polls / lifecycles:.1f} operation-status polls)")
    work = ", ".join(f"{name} {seconds * 1000 / lifecycles:.1f}" for name, seconds in m.azure_work.items())
    print(f"  CPU ms of the same lifecycles' Azure work alone (bench/azure_work.py, no engine): {work}; "
          f"total {m.azure_work_ms():.1f}")
    print(f"  the ratio of the bare engine with that Azure work added (CPU): {m.with_azure_work():.2f}; azmc's own CPU "
          f"beyond both: {m.cpu_ms('azmc') - m.cpu_ms('bare') - m.azure_work_ms():.0f} ms a lifecycle")
    print(f"  emulator: {m.emulator_core_share():.0%} of one core during the azmc runs, "
          f"{m.emulator_cpu_share():.0%} of all CPU used")
    print(f"  azmc worker peak RSS: {m.worker_peak_rss_mib:.0f} MiB")


def results_rows(m: Measured) -> list[dict[str, object]]:
    a, b = m.azmc_history, m.bare_history
    same_run = f"{m.machines} x {m.rounds} rounds, alternating"
    paired = m.paired_ratios()
    return [
        row("lifecycle rate / bare workflow rate, median round", round(statistics.median(paired), 2), "", ">= 0.95",
            "bare 1.0", f"{same_run}: each round's pair of runs gives a ratio, this is their median (round by round "
            f"{min(paired):.2f} to {max(paired):.2f}); best rounds' ratio "
            f"{m.best_rate('azmc') / m.best_rate('bare'):.2f}"),
        row("bare engine with the Azure work added / bare engine, CPU", round(m.with_azure_work(), 2), "", None, None,
            f"bare {m.cpu_ms('bare'):.0f} ms of CPU a lifecycle over that plus the same lifecycles' Azure work "
            f"without an engine ({m.azure_work_ms():.1f} ms: bench/azure_work.py and the emulator); azmc's own CPU "
            f"beyond both {m.cpu_ms('azmc') - m.cpu_ms('bare') - m.azure_work_ms():.0f} ms"),
        row("CPU per lifecycle, bare / azmc", round(m.cpu_ms("bare") / m.cpu_ms("azmc"), 2), "", None, "bare 1.0",
            "all processes; on 2 shared cores the rate follows it"),
        row("lifecycle rate (create -> Running -> delete)", round(m.best_rate("azmc"), 2), "machines/s", None,
            f"bare {m.best_rate('bare'):.2f}/s",
            f"bare: {m.bare_input.create_activities} + {m.bare_input.delete_activities} no-op activities"),
        row("CPU per lifecycle, all processes", round(m.cpu_ms("azmc")), "ms", None, f"bare {m.cpu_ms('bare'):.0f} ms",
            "server + worker + emulator, from /proc"),
        row("CPU per lifecycle, worker", round(m.cpu_ms("azmc", "azmc worker")), "ms", None,
            f"bare worker {m.cpu_ms('bare', 'bare worker'):.0f} ms"),
        row("CPU per lifecycle, Temporal server", round(m.cpu_ms("azmc", "server")), "ms", None,
            f"bare {m.cpu_ms('bare', 'server'):.0f} ms"),
        row("workflow tasks per lifecycle", _per(a, "workflow_tasks"), "tasks", None,
            f"bare {_per(b, 'workflow_tasks')}", f"from {a.workflows} histories each; "
            f"{_per(a, 'local_activities')} of the machine's activities are local (the short calls)"),
        row("history events per lifecycle", _per(a, "events"), "events", None, f"bare {_per(b, 'events')}",
            f"{_per(a, 'upserts')} search-attribute upserts in {_per(a, 'upsert_tasks')} workflow tasks (bare "
            f"{_per(b, 'upserts')} in {_per(b, 'upsert_tasks')}), {_per(a, 'timers')} timers"),
        row("workflow task timeouts + failures", a.workflow_task_timeouts + a.workflow_task_failures, "tasks", "0",
            None, f"in {a.workflows} lifecycle histories"),
        row("emulator CPU during the lifecycle runs", round(100 * m.emulator_core_share(), 1), "% of a core",
            "not the bottleneck", None, f"{100 * m.emulator_cpu_share():.0f}% of all CPU used; /proc/<pid>/stat"),
        row("worker peak RSS (lifecycle runs)", round(m.worker_peak_rss_mib), "MiB"),
    ]
