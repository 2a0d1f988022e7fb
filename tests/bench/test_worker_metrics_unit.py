"""bench/worker_metrics.py reads Prometheus' text format as a worker serves it: comments skipped, labels as a dict
(their values as written, escapes kept), values as numbers."""

from bench.worker_metrics import Sample, samples

TEXT = '''# HELP temporal_worker_task_slots_available Current number of available slots per task type
# TYPE temporal_worker_task_slots_available gauge
temporal_worker_task_slots_available{namespace="default",task_queue="azmc",worker_type="WorkflowWorker"} 10
temporal_workflow_task_execution_failed_total{failure_reason="NonDeterminismError",workflow_type="Machine"} 2

azmc_note{text="a \\"quoted\\" word, a brace }"} 1.5e+03
process_start_time_seconds 1.7e9
'''


def test_every_sample_is_read_with_its_labels_and_value() -> None:
    assert samples(TEXT) == [
        Sample("temporal_worker_task_slots_available",
               {"namespace": "default", "task_queue": "azmc", "worker_type": "WorkflowWorker"}, 10.0),
        Sample("temporal_workflow_task_execution_failed_total",
               {"failure_reason": "NonDeterminismError", "workflow_type": "Machine"}, 2.0),
        Sample("azmc_note", {"text": 'a \\"quoted\\" word, a brace }'}, 1500.0),
        Sample("process_start_time_seconds", {}, 1.7e9),
    ]
