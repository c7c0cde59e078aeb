"""The one place requests are made.

Builds them from the operation table, parses the envelope, turns failures into ``MediaJobsError``
and retries what is safe to retry, boundedly. It carries the read-your-writes bookmark forward
(docs/api.md, "Read-your-writes: x-d1-bookmark"): the newest ``x-d1-bookmark`` any answer brought
goes with every request, so a read after a write sees it even on a read replica.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlencode

from ._decode import DecodeError, as_object, decode
from .errors import MediaJobsError, error_from_response
from .operations import OPERATIONS, fill_path

T = TypeVar("T")

BOOKMARK_HEADER = "x-d1-bookmark"
USER_AGENT = "media-jobs-python/0.1.0"

Sleep = Callable[[float], None]
QueryValue = str | int | None


def newer_bookmark(a: str | None, b: str | None) -> str | None:
    """The newer of two bookmarks: D1's bookmarks sort as strings from oldest to newest."""
    if not a:
        return b or None
    if not b:
        return a
    return a if a >= b else b


@dataclass(frozen=True)
class Envelope:
    data: Any
    metadata: dict[str, Any]
    #: By lower-cased name.
    headers: Mapping[str, str]


@dataclass(frozen=True)
class FileResponse:
    content: bytes
    #: By lower-cased name.
    headers: Mapping[str, str]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    # The API never redirects; following one would send the key to wherever it pointed.
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


class Transport:
    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        max_retries: int = 2,
        retry_base: float = 0.5,
        retry_max: float = 30.0,
        timeout: float = 60.0,
        sleep: Sleep = time.sleep,
        bookmark: str | None = None,
        on_bookmark: Callable[[str], None] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._max_retries = max_retries
        self._retry_base = retry_base
        self._retry_max = retry_max
        self._timeout = timeout
        self.sleep = sleep
        self._bookmark = bookmark or None
        self._on_bookmark = on_bookmark
        # One client may be shared by threads; the bookmark is the only state they share.
        self._lock = threading.Lock()
        self._opener = urllib.request.build_opener(_NoRedirect())

    @property
    def bookmark(self) -> str | None:
        """The newest read-your-writes bookmark this client holds (None before the first answer)."""
        return self._bookmark

    def call(
        self,
        op_id: str,
        *,
        params: dict[str, str] | None = None,
        query: Mapping[str, QueryValue] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Envelope:
        status, res_headers, raw = self._send(op_id, params, query, body, headers, "application/json")
        try:
            parsed = json.loads(raw.decode("utf-8")) if raw else None
        except ValueError:
            parsed = None
        envelope = as_object(parsed)
        if envelope is not None and "data" in envelope:
            return Envelope(envelope["data"], as_object(envelope.get("metadata")) or {}, res_headers)
        raise MediaJobsError(status=status, code="invalidResponse", message=f"HTTP {status} without an envelope")

    def call_into(
        self,
        cls: type[T],
        op_id: str,
        *,
        params: dict[str, str] | None = None,
        query: Mapping[str, QueryValue] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> T:
        """``call``, its ``data`` decoded as ``cls``."""
        env = self.call(op_id, params=params, query=query, body=body, headers=headers)
        return self.decode(cls, env.data, op_id)

    @staticmethod
    def decode(into: type[T], data: Any, op_id: str) -> T:
        try:
            return decode(into, data)
        except DecodeError as err:
            raise MediaJobsError(status=200, code="invalidResponse", message=f"{op_id}: {err}") from err

    def file(
        self,
        op_id: str,
        *,
        params: dict[str, str] | None = None,
        query: Mapping[str, QueryValue] | None = None,
    ) -> FileResponse:
        """For a route that answers a file rather than the envelope. Errors still come as envelopes."""
        _, headers, raw = self._send(op_id, params, query, None, None, "*/*")
        return FileResponse(raw, headers)

    def _url(self, path: str, query: Mapping[str, QueryValue] | None) -> str:
        pairs = [(k, str(v)) for k, v in (query or {}).items() if v is not None and v != ""]
        return f"{self.base_url}{path}{'?' + urlencode(pairs) if pairs else ''}"

    def _send(
        self,
        op_id: str,
        params: dict[str, str] | None,
        query: Mapping[str, QueryValue] | None,
        body: Any,
        extra_headers: Mapping[str, str] | None,
        accept: str,
    ) -> tuple[int, Mapping[str, str], bytes]:
        op = OPERATIONS[op_id]
        unknown = set(query or {}) - set(op.query)
        if unknown:
            raise ValueError(f"{op_id} takes no query parameter {sorted(unknown)}")
        headers = {"accept": accept, "user-agent": USER_AGENT, **(extra_headers or {})}
        if op.auth == "project":
            if not self._api_key:
                raise MediaJobsError(status=0, code="missingApiKey", message="an API key is required for this call")
            headers["authorization"] = f"Bearer {self._api_key}"
        # Serialised once, so every retry sends the same bytes (the Idempotency-Key check compares bodies).
        data = None if body is None else json.dumps(body, separators=(",", ":")).encode("utf-8")
        if data is not None:
            headers["content-type"] = "application/json"
        url = self._url(fill_path(op.path, params or {}), query)

        attempt = 0
        while True:
            retries_left = self._max_retries - attempt if op.retry else 0
            # Read per attempt: a retry carries whatever newer bookmark arrived meanwhile.
            if self._bookmark:
                headers[BOOKMARK_HEADER] = self._bookmark
            request = urllib.request.Request(url, data=data, headers=headers, method=op.method)
            try:
                with self._opener.open(request, timeout=self._timeout) as res:
                    status, res_headers, raw = res.status, _headers(res.headers), res.read()
            except urllib.error.HTTPError as err:
                status, res_headers, raw = err.code, _headers(err.headers), err.read()
            except (OSError, http.client.HTTPException) as err:
                if retries_left > 0:
                    self.sleep(self._backoff(attempt, None))
                    attempt += 1
                    continue
                raise MediaJobsError(status=0, code="networkError", message=f"{op.method} {url}: {err}") from err
            # Error answers carry one too: a refused write still read the database.
            self._keep_bookmark(res_headers.get(BOOKMARK_HEADER))
            if 200 <= status < 300:
                return status, res_headers, raw
            error = error_from_response(status, res_headers, raw)
            if retries_left > 0 and self._retryable(op_id, status):
                self.sleep(self._backoff(attempt, error.retry_after))
                attempt += 1
                continue
            raise error

    def _keep_bookmark(self, received: str | None) -> None:
        with self._lock:
            newer = newer_bookmark(self._bookmark, received)
            if not newer or newer == self._bookmark:
                return
            self._bookmark = newer
        if self._on_bookmark:
            self._on_bookmark(newer)

    @staticmethod
    def _retryable(op_id: str, status: int) -> bool:
        if status >= 500:
            return True
        # A create's only 409 is "the first request with this Idempotency-Key is still in flight":
        # trying again gets its answer.
        return status == 409 and "Idempotency-Key" in OPERATIONS[op_id].headers

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(retry_after, self._retry_max)
        # Retry number attempt+1, with "equal" jitter: at least half the exponential step.
        step = self._retry_base * 2**attempt
        return step / 2 + random.random() * step / 2


def _headers(message: Any) -> dict[str, str]:
    """Response headers by lower-cased name (repeated headers joined as HTTP allows)."""
    out: dict[str, str] = {}
    if message is not None:
        for key, value in message.items():
            name = str(key).lower()
            out[name] = f"{out[name]}, {value}" if name in out else str(value)
    return out
