"""``/v1/workflows`` (steps run as jobs, each made when its dependencies complete) and ``/v1/presets``."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .errors import WaitTimeoutError
from .models import WORKFLOW_ENDED_STATUSES, Pagination, Preset, Workflow, WorkflowPage, WorkflowStatus
from .transport import Transport
from .waiting import poll_until


class WorkflowsResource:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def create(self, body: Mapping[str, Any], *, idempotency_key: str | None = None) -> Workflow:
        """Starts a workflow from a ``POST /v1/workflows`` body: ``{"steps": [...]}`` or ``{"presetId": ...}``.

        A step is a job body with an ``id`` and the ids it waits for (``dependsOn``); a string in it may
        name an earlier step's output, ``"{{transcribe.textSourceId}}"``. The Idempotency-Key (a fresh
        UUID by default, reused by the call's own retries) makes a retry answer the same workflow.
        """
        key = idempotency_key or str(uuid.uuid4())
        return self._t.call_into(Workflow, "createWorkflow", body=dict(body), headers={"Idempotency-Key": key})

    def run_preset(
        self,
        preset_id: str,
        *,
        variables: Mapping[str, str] | None = None,
        webhook_url: str | None = None,
        user_metadata: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Workflow:
        """Starts the workflow a preset saved, filling its ``{{vars.name}}`` with ``variables``."""
        body: dict[str, Any] = {"presetId": preset_id}
        if variables is not None:
            body["variables"] = dict(variables)
        if webhook_url is not None:
            body["webhookUrl"] = webhook_url
        if user_metadata is not None:
            body["userMetadata"] = dict(user_metadata)
        return self.create(body, idempotency_key=idempotency_key)

    def get(self, workflow_id: str) -> Workflow:
        return self._t.call_into(Workflow, "getWorkflow", params={"workflowId": workflow_id})

    def list(
        self,
        *,
        page: int | None = None,
        limit: int | None = None,
        statuses: Sequence[WorkflowStatus] | None = None,
        preset_id: str | None = None,
    ) -> WorkflowPage:
        """One page of ``GET /v1/workflows``, newest first (``limit`` 1–100, default 20)."""
        env = self._t.call(
            "listWorkflows",
            query={
                "page": page,
                "limit": limit,
                "statuses": ",".join(statuses) if statuses else None,
                "presetId": preset_id,
            },
        )
        workflows = self._t.decode(list[Workflow], env.data, "listWorkflows")
        pagination = env.metadata.get("pagination")
        return WorkflowPage(
            data=workflows,
            pagination=self._t.decode(Pagination, pagination, "listWorkflows")
            if pagination is not None
            else Pagination(page=page or 1, limit=limit or 20, total=len(workflows), total_pages=1),
        )

    def list_all(
        self, *, limit: int = 100, statuses: Sequence[WorkflowStatus] | None = None, preset_id: str | None = None
    ) -> Iterator[Workflow]:
        page = 1
        while True:
            result = self.list(page=page, limit=limit, statuses=statuses, preset_id=preset_id)
            yield from result.data
            if not result.data or page >= result.pagination.total_pages:
                return
            page += 1

    def cancel(self, workflow_id: str) -> Workflow:
        """Cancels the workflow: its running jobs are cancelled, its waiting steps never start."""
        return self._t.call_into(Workflow, "cancelWorkflow", params={"workflowId": workflow_id})

    def wait(
        self,
        workflow_id: str,
        *,
        interval: float = 1.0,
        max_interval: float = 10.0,
        timeout: float | None = None,
        on_update: Callable[[Workflow], None] | None = None,
    ) -> Workflow:
        """Polls until the workflow is ``completed``, ``failed`` or ``cancelled``, as ``jobs.wait`` does for a job.

        ``on_update`` sees the first state and every change of the workflow or of a step.
        """
        return poll_until(
            lambda: self.get(workflow_id),
            finished=lambda w: w.status in WORKFLOW_ENDED_STATUSES,
            version=lambda w: (w.status, w.updated_at, tuple((s.status, s.job_id) for s in w.steps)),
            sleep=self._t.sleep,
            interval=interval,
            max_interval=max_interval,
            timeout=timeout,
            on_update=on_update,
            timed_out=WaitTimeoutError,
            what=f"workflow {workflow_id}",
        )

    def submit_and_wait(
        self,
        body: Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        interval: float = 1.0,
        max_interval: float = 10.0,
        timeout: float | None = None,
        on_update: Callable[[Workflow], None] | None = None,
    ) -> Workflow:
        """``create``, then ``wait``."""
        workflow = self.create(body, idempotency_key=idempotency_key)
        return self.wait(
            workflow.workflow_id, interval=interval, max_interval=max_interval, timeout=timeout, on_update=on_update
        )


class PresetsResource:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def create(
        self,
        name: str,
        steps: Sequence[Mapping[str, Any]],
        *,
        description: str | None = None,
        webhook_url: str | None = None,
        user_metadata: Mapping[str, Any] | None = None,
    ) -> Preset:
        return self._t.call_into(
            Preset, "createPreset", body=_preset_body(name, steps, description, webhook_url, user_metadata)
        )

    def list(self) -> list[Preset]:
        return self._t.call_into(list[Preset], "listPresets")

    def get(self, preset_id: str) -> Preset:
        return self._t.call_into(Preset, "getPreset", params={"presetId": preset_id})

    def replace(
        self,
        preset_id: str,
        name: str,
        steps: Sequence[Mapping[str, Any]],
        *,
        description: str | None = None,
        webhook_url: str | None = None,
        user_metadata: Mapping[str, Any] | None = None,
    ) -> Preset:
        """``PUT /v1/presets/{presetId}``: the preset becomes this one whole (workflows already started keep theirs)."""
        body = _preset_body(name, steps, description, webhook_url, user_metadata)
        return self._t.call_into(Preset, "replacePreset", params={"presetId": preset_id}, body=body)

    def delete(self, preset_id: str) -> None:
        """Deletes the preset; 409 ``conflict`` while a storage connection's trigger uses it."""
        self._t.call("deletePreset", params={"presetId": preset_id})


def _preset_body(
    name: str,
    steps: Sequence[Mapping[str, Any]],
    description: str | None,
    webhook_url: str | None,
    user_metadata: Mapping[str, Any] | None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "steps": [dict(s) for s in steps]}
    if description is not None:
        body["description"] = description
    if webhook_url is not None:
        body["webhookUrl"] = webhook_url
    if user_metadata is not None:
        body["userMetadata"] = dict(user_metadata)
    return body
