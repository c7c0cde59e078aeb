from __future__ import annotations

import unittest
from typing import Any

from media_jobs import MediaJobsError, WaitTimeoutError, Workflow, parse_workflow_event

from .fake_api import envelope
from .support import ClientTestCase

STEPS: list[dict[str, Any]] = [
    {"id": "transcribe", "serviceType": "transcription", "input": {"sourceType": "s3_direct", "sourceKey": "a.mp4"}},
    {
        "id": "clips",
        "serviceType": "clip_generation",
        "input": {"textSourceId": "{{transcribe.textSourceId}}"},
        "dependsOn": ["transcribe"],
    },
]


def step_json(step_id: str, status: str, job_id: str | None = None, **changes: Any) -> dict[str, Any]:
    step = {
        "id": step_id,
        "serviceType": "transcription" if step_id == "transcribe" else "clip_generation",
        "dependsOn": [] if step_id == "transcribe" else ["transcribe"],
        "status": status,
        "jobId": job_id,
        "error": None,
        "createdAt": None,
        "endedAt": None,
    }
    step.update(changes)
    return step


def workflow_json(status: str = "running", steps: list[dict[str, Any]] | None = None, **changes: Any) -> dict[str, Any]:
    workflow: dict[str, Any] = {
        "workflowId": "wf_1",
        "workspaceId": "wsp_1",
        "projectId": "prj_1",
        "presetId": None,
        "status": status,
        "steps": steps or [step_json("transcribe", "queued", "job_1"), step_json("clips", "waiting")],
        "credits": {"transcriptionMinutes": 2},
        "trigger": None,
        "variables": {},
        "error": None,
        "webhookUrl": None,
        "userMetadata": None,
        "createdByLabel": "key",
        "cancelRequestedAt": None,
        "createdAt": "2026-11-27T10:00:00.000Z",
        "updatedAt": "2026-11-27T10:00:00.000Z",
        "endedAt": None,
    }
    workflow.update(changes)
    return workflow


class WorkflowsTest(ClientTestCase):
    def test_create_posts_the_steps_with_an_idempotency_key_and_returns_the_workflow(self) -> None:
        self.api.queue = [envelope(workflow_json(), 201)]
        workflow = self.mj.workflows.create({"steps": STEPS}, idempotency_key="upload-42")
        sent = self.api.sent[0]
        self.assertEqual(
            (sent.method, sent.path, sent.headers["idempotency-key"]), ("POST", "/v1/workflows", "upload-42")
        )
        self.assertEqual(sent.json(), {"steps": STEPS})
        self.assertIsInstance(workflow, Workflow)
        self.assertEqual((workflow.step("transcribe").job_id, workflow.step("clips").status), ("job_1", "waiting"))

    def test_run_preset_sends_the_preset_and_its_variables(self) -> None:
        self.api.queue = [envelope(workflow_json(presetId="pst_1", variables={"language": "es"}), 201)]
        self.mj.workflows.run_preset("pst_1", variables={"language": "es"})
        self.assertEqual(self.api.sent[0].json(), {"presetId": "pst_1", "variables": {"language": "es"}})

    def test_wait_reports_every_step_change_and_returns_the_ended_workflow(self) -> None:
        running = workflow_json()
        clips_started = workflow_json(
            steps=[step_json("transcribe", "completed", "job_1"), step_json("clips", "queued", "job_2")]
        )
        done = workflow_json(
            "completed",
            steps=[step_json("transcribe", "completed", "job_1"), step_json("clips", "completed", "job_2")],
            endedAt="2026-11-27T10:05:00.000Z",
        )
        self.api.queue = [envelope(running), envelope(running), envelope(clips_started), envelope(done)]
        seen: list[list[str]] = []
        workflow = self.mj.workflows.wait("wf_1", on_update=lambda w: seen.append([s.status for s in w.steps]))
        self.assertEqual(workflow.status, "completed")
        self.assertEqual(seen, [["queued", "waiting"], ["completed", "queued"], ["completed", "completed"]])
        self.assertEqual(self.slept, [1.0, 1.5, 1.0])

    def test_a_wait_that_times_out_carries_the_last_workflow_seen(self) -> None:
        self.api.responder = lambda _: envelope(workflow_json())
        with self.assertRaises(WaitTimeoutError) as raised:
            self.mj.workflows.wait("wf_1", interval=0.01, timeout=0.03)
        self.assertEqual(raised.exception.workflow.workflow_id, "wf_1")

    def test_list_filters_by_status_and_preset(self) -> None:
        pagination = {"page": 1, "limit": 20, "total": 1, "totalPages": 1}
        self.api.queue = [envelope([workflow_json()], metadata={"pagination": pagination})]
        page = self.mj.workflows.list(statuses=["running", "failed"], preset_id="pst_1")
        self.assertEqual(self.api.sent[0].query, {"statuses": "running,failed", "presetId": "pst_1"})
        self.assertEqual(page.pagination.total, 1)

    def test_cancel_posts_to_the_workflows_cancel_route(self) -> None:
        self.api.queue = [envelope(workflow_json("cancelling"))]
        self.assertEqual(self.mj.workflows.cancel("wf_1").status, "cancelling")
        self.assertEqual(self.api.sent[0].path, "/v1/workflows/wf_1/cancel")

    def test_a_workflow_delivery_parses_into_a_typed_event(self) -> None:
        payload = {
            "type": "workflow.completed",
            "event": "completed",
            "eventId": "msg_wf_1",
            "occurredAt": "2026-11-27T10:05:00.000Z",
            "workflowId": "wf_1",
            "customerJobRef": None,
            "workflow": workflow_json("completed"),
        }
        self.assertEqual(parse_workflow_event(payload).workflow.status, "completed")


def preset_json(**changes: Any) -> dict[str, Any]:
    preset: dict[str, Any] = {
        "presetId": "pst_1",
        "projectId": "prj_1",
        "name": "transcribe-and-clip",
        "description": None,
        "steps": STEPS,
        "variables": [],
        "webhookUrl": None,
        "userMetadata": None,
        "createdAt": "2026-11-27T10:00:00.000Z",
        "updatedAt": "2026-11-27T10:00:00.000Z",
    }
    preset.update(changes)
    return preset


class PresetsTest(ClientTestCase):
    def test_create_saves_the_named_steps(self) -> None:
        self.api.queue = [envelope(preset_json(), 201)]
        preset = self.mj.presets.create("transcribe-and-clip", STEPS, description="uploads")
        self.assertEqual(
            self.api.sent[0].json(), {"name": "transcribe-and-clip", "steps": STEPS, "description": "uploads"}
        )
        self.assertEqual(preset.steps[1].depends_on, ["transcribe"])

    def test_a_failed_create_is_not_sent_again_since_a_second_preset_could_be_saved(self) -> None:
        self.api.queue = [envelope(None, 503)]
        with self.assertRaises(MediaJobsError):
            self.mj.presets.create("p", STEPS)
        self.assertEqual(len(self.api.sent), 1)

    def test_list_get_replace_and_delete_use_the_preset_routes(self) -> None:
        self.api.queue = [
            envelope([preset_json()]),
            envelope(preset_json()),
            envelope(preset_json(name="renamed")),
            envelope({"presetId": "pst_1", "deleted": True}),
        ]
        self.assertEqual([p.preset_id for p in self.mj.presets.list()], ["pst_1"])
        self.mj.presets.get("pst_1")
        self.assertEqual(self.mj.presets.replace("pst_1", "renamed", STEPS).name, "renamed")
        self.mj.presets.delete("pst_1")
        self.assertEqual(
            [(s.method, s.path) for s in self.api.sent],
            [
                ("GET", "/v1/presets"),
                ("GET", "/v1/presets/pst_1"),
                ("PUT", "/v1/presets/pst_1"),
                ("DELETE", "/v1/presets/pst_1"),
            ],
        )


if __name__ == "__main__":
    unittest.main()
