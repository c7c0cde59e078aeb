"""The errors the client raises: the API's error envelope as a typed exception, and the client's own."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, Literal

from ._decode import as_array, as_object
from .models import Job, Workflow


@dataclass(frozen=True)
class ErrorDetail:
    """One entry of the envelope's ``error.details[]``: where in the request, and a machine-readable token."""

    path: str
    issue: str


@dataclass(eq=False)
class MediaJobsError(Exception):
    """Any failed API call: the spec's error envelope (``{data: null, error: {code, message, details}}``).

    A request that never got an answer (connection refused, DNS, reset, timeout) has ``status == 0``
    and ``code == "networkError"``; an answer that is not the envelope has ``code == "invalidResponse"``.
    Branch on ``code`` and ``details[].issue``, never on ``message`` (docs/api.md, "Errors").
    """

    status: int
    code: str
    message: str
    details: list[ErrorDetail] = field(default_factory=lambda: [])
    #: The platform's request id when the answer carried one (``cf-ray`` behind Cloudflare, else
    #: ``x-request-id``), for support.
    request_id: str | None = None
    #: The envelope's ``metadata`` (e.g. ``quota`` on 429 ``quotaExceeded``).
    metadata: dict[str, Any] = field(default_factory=lambda: {})
    #: From a ``Retry-After`` header, in seconds.
    retry_after: float | None = None

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"{self.code} ({self.status}): {self.message}"


class WaitTimeoutError(Exception):
    """A wait gave up before the job (or workflow) ended; ``job`` (or ``workflow``) is the last state seen."""

    def __init__(self, last: Job | Workflow, timeout: float) -> None:
        name = f"job {last.job_id}" if isinstance(last, Job) else f"workflow {last.workflow_id}"
        super().__init__(f"{name} is still {last.status} after {timeout:g} s")
        self.last = last
        self.timeout = timeout

    @property
    def job(self) -> Job:
        """The last state of the job waited for (``jobs.wait``)."""
        if not isinstance(self.last, Job):
            raise AttributeError("this wait was for a workflow: see .workflow")
        return self.last

    @property
    def workflow(self) -> Workflow:
        """The last state of the workflow waited for (``workflows.wait``)."""
        if not isinstance(self.last, Workflow):
            raise AttributeError("this wait was for a job: see .job")
        return self.last


WebhookFailure = Literal["missingHeaders", "badTimestamp", "timestampOutOfTolerance", "badSignature", "badSecret"]


class WebhookVerificationError(Exception):
    """A webhook that does not verify: missing headers, a bad signature or a timestamp outside the tolerance."""

    def __init__(self, reason: WebhookFailure, message: str) -> None:
        super().__init__(message)
        self.reason: WebhookFailure = reason


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as delay-seconds or an HTTP date, in seconds from now; None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        at = parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, at - (time.time() if now is None else now))


def error_from_response(status: int, headers: Mapping[str, str], raw: bytes) -> MediaJobsError:
    """Builds the error for a non-2xx answer from its body and headers."""
    request_id = headers.get("cf-ray") or headers.get("x-request-id")
    retry_after = parse_retry_after(headers.get("retry-after"))
    text = raw.decode("utf-8", errors="replace")
    body = as_object(_json_or_none(text)) or {}
    error = as_object(body.get("error"))
    code = error.get("code") if error else None
    if error is None or not isinstance(code, str):
        return MediaJobsError(
            status=status,
            code="invalidResponse",
            message=f"HTTP {status}: {text[:300] or '(empty body)'}",
            request_id=request_id,
            retry_after=retry_after,
        )
    entries = [as_object(d) for d in as_array(error.get("details")) or []]
    details = [ErrorDetail(str(d.get("path", "")), str(d.get("issue", ""))) for d in entries if d is not None]
    message = error.get("message")
    return MediaJobsError(
        status=status,
        code=code,
        message=message if isinstance(message, str) else code,
        details=details,
        request_id=request_id,
        metadata=as_object(body.get("metadata")) or {},
        retry_after=retry_after,
    )


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text) if text else None
    except ValueError:
        return None
