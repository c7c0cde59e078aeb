"""``POST /v1/jobs``, ``GET /v1/jobs[/{jobId}]``, cancel, progress, and the polling helpers."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from .errors import WaitTimeoutError
from .models import Job, JobPage, JobProgress, JobStatus, Pagination, ServiceType, WebhookDelivery, is_terminal_status
from .transport import Transport
from .waiting import poll_until


class JobsResource:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def create(self, request: Mapping[str, Any], *, idempotency_key: str | None = None) -> Job:
        """Creates a job from a ``POST /v1/jobs`` body (``{"serviceType": ..., "input": {...}, ...}``).

        The Idempotency-Key makes the call safe to retry: the transport's own retries (5xx, lost
        connection) and yours, when you pass the same key, never create a second job. Default: a
        fresh UUID per call, reused by its retries.
        """
        key = idempotency_key or str(uuid.uuid4())
        return self._t.call_into(Job, "createJob", body=dict(request), headers={"Idempotency-Key": key})

    def get(self, job_id: str) -> Job:
        return self._t.call_into(Job, "getJob", params={"jobId": job_id})

    def list(
        self,
        *,
        page: int | None = None,
        limit: int | None = None,
        job_id: str | None = None,
        customer_job_ref: str | None = None,
        user: str | None = None,
        input: str | None = None,
        statuses: Sequence[JobStatus] | None = None,
        service_types: Sequence[ServiceType] | None = None,
        sort: str | None = None,
        sort_dir: str | None = None,
    ) -> JobPage:
        """One page of ``GET /v1/jobs`` (``limit`` 1–100, default 20) with its pagination."""
        env = self._t.call(
            "listJobs",
            query={
                "page": page,
                "limit": limit,
                "jobId": job_id,
                "customerJobRef": customer_job_ref,
                "user": user,
                "input": input,
                "statuses": ",".join(statuses) if statuses else None,
                "serviceTypes": ",".join(service_types) if service_types else None,
                "sort": sort,
                "sortDir": sort_dir,
            },
        )
        jobs = self._t.decode(list[Job], env.data, "listJobs")
        pagination = env.metadata.get("pagination")
        return JobPage(
            data=jobs,
            pagination=self._t.decode(Pagination, pagination, "listJobs")
            if pagination is not None
            else Pagination(page=page or 1, limit=limit or 20, total=len(jobs), total_pages=1),
        )

    def list_all(self, *, limit: int = 100, **filters: Any) -> Iterator[Job]:
        """Every job matching the filters of ``list``, page by page (``limit`` per request)."""
        page = 1
        while True:
            result = self.list(page=page, limit=limit, **filters)
            yield from result.data
            if not result.data or page >= result.pagination.total_pages:
                return
            page += 1

    def cancel(self, job_id: str) -> Job:
        return self._t.call_into(Job, "cancelJob", params={"jobId": job_id})

    def progress(self, job_id: str) -> JobProgress:
        """Stage timeline. Console sessions only (``sk_con_``); project keys get 403 ``forbidden``."""
        return self._t.call_into(JobProgress, "getJobProgress", params={"jobId": job_id})

    def webhook_deliveries(self, job_id: str) -> list[WebhookDelivery]:
        return self._t.call_into(list[WebhookDelivery], "listWebhookDeliveries", params={"jobId": job_id})

    def policy(self, service_type: ServiceType | None = None) -> dict[str, Any]:
        """``GET /v1/jobs/policy`` (no key needed): what a job may ask for, and the defaults."""
        data: dict[str, Any] = self._t.call("getJobPolicy", query={"serviceType": service_type}).data
        return data

    def wait(
        self,
        job_id: str,
        *,
        interval: float = 1.0,
        max_interval: float = 10.0,
        timeout: float | None = None,
        on_update: Callable[[Job], None] | None = None,
    ) -> Job:
        """Polls until the job is ``completed``, ``failed`` or ``cancelled`` and returns it.

        It keeps polling through ``cancelling``; a failed job is returned, not raised. The interval
        starts at ``interval`` seconds, grows ×1.5 per poll that brings no change up to
        ``max_interval`` and drops back when the job moves (``updatedAt``). A 429 or 503 waits for its
        ``Retry-After`` (or the current interval) and polls again; other errors are raised. After
        ``timeout`` seconds it raises ``WaitTimeoutError`` carrying the last state seen.
        """
        return poll_until(
            lambda: self.get(job_id),
            finished=lambda job: is_terminal_status(job.status),
            version=lambda job: (job.status, job.updated_at),
            sleep=self._t.sleep,
            interval=interval,
            max_interval=max_interval,
            timeout=timeout,
            on_update=on_update,
            timed_out=WaitTimeoutError,
            what=f"job {job_id}",
        )

    def submit_and_wait(
        self,
        request: Mapping[str, Any],
        *,
        idempotency_key: str | None = None,
        interval: float = 1.0,
        max_interval: float = 10.0,
        timeout: float | None = None,
        on_update: Callable[[Job], None] | None = None,
    ) -> Job:
        """``create``, then ``wait``."""
        job = self.create(request, idempotency_key=idempotency_key)
        return self.wait(job.job_id, interval=interval, max_interval=max_interval, timeout=timeout, on_update=on_update)
