"""The media-jobs API client."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .jobs import JobsResource
from .records import CatalogResource, ClipsResource, TranscriptionsResource
from .transport import Sleep, Transport
from .webhooks import DEFAULT_TOLERANCE_SEC, verify_webhook
from .workflows import PresetsResource, WorkflowsResource


class Webhooks:
    @staticmethod
    def verify(
        raw_body: bytes | str,
        headers: Mapping[str, str | Sequence[str]],
        secret: str | Sequence[str],
        *,
        tolerance: int = DEFAULT_TOLERANCE_SEC,
    ) -> dict[str, Any]:
        """See ``verify_webhook``: the parsed body, or ``WebhookVerificationError``."""
        return verify_webhook(raw_body, headers, secret, tolerance=tolerance)


class MediaJobs:
    """The media-jobs API client: standard library only, thread-safe to share.

    >>> mj = MediaJobs("http://127.0.0.1:8787", api_key=os.environ["MEDIA_JOBS_KEY"])
    >>> job = mj.jobs.submit_and_wait({"serviceType": "transcription", "input": {...}})
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        max_retries: int = 2,
        retry_base: float = 0.5,
        timeout: float = 60.0,
        sleep: Sleep = time.sleep,
        bookmark: str | None = None,
        on_bookmark: Callable[[str], None] | None = None,
    ) -> None:
        """
        ``base_url``: e.g. ``https://media.example.com`` or ``http://127.0.0.1:8787``.
        ``api_key``: a project key (``sk_prj_…``) or console session (``sk_con_…``).
        ``max_retries``: extra attempts for reads, cancel and create (made safe by its Idempotency-Key)
        after a 5xx or network error, ``retry_base`` seconds apart, doubled per attempt.
        ``timeout``: seconds per request attempt. ``sleep``: how the client waits (for tests).
        ``bookmark``: read-your-writes across clients, the ``bookmark`` of an earlier client;
        ``on_bookmark`` is called with each newer one, e.g. to save it for another process.
        """
        self._transport = Transport(
            base_url,
            api_key,
            max_retries=max_retries,
            retry_base=retry_base,
            timeout=timeout,
            sleep=sleep,
            bookmark=bookmark,
            on_bookmark=on_bookmark,
        )
        self.jobs = JobsResource(self._transport)
        self.transcriptions = TranscriptionsResource(self._transport)
        self.clips = ClipsResource(self._transport, self.jobs)
        self.catalog = CatalogResource(self._transport)
        self.workflows = WorkflowsResource(self._transport)
        self.presets = PresetsResource(self._transport)
        self.webhooks = Webhooks()

    @property
    def bookmark(self) -> str | None:
        """The newest read-your-writes bookmark the API answered this client (None before its first call)."""
        return self._transport.bookmark
