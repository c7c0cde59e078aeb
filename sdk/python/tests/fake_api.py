"""A scripted API on loopback: each test queues the answers, then reads the requests the client sent."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit


@dataclass
class Sent:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Answer:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {})


def envelope(data: Any, status: int = 200, metadata: dict[str, Any] | None = None, **headers: str) -> Answer:
    body = json.dumps({"data": data, "metadata": metadata or {}}).encode()
    return Answer(status, body, {"content-type": "application/json", **_names(headers)})


def error(status: int, code: str, message: str = "refused", **headers: str) -> Answer:
    body: dict[str, Any] = {"data": None, "error": {"code": code, "message": message, "details": []}, "metadata": {}}
    return Answer(status, json.dumps(body).encode(), {"content-type": "application/json", **_names(headers)})


def _names(headers: dict[str, str]) -> dict[str, str]:
    return {k.replace("_", "-"): v for k, v in headers.items()}


class FakeApi:
    """Answers requests in order from ``queue`` (or ``responder`` when set) and records them in ``sent``."""

    def __init__(self) -> None:
        self.queue: list[Answer] = []
        self.sent: list[Sent] = []
        self.responder: Callable[[Sent], Answer] | None = None
        api = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                url = urlsplit(self.path)
                length = int(self.headers.get("content-length") or 0)
                sent = Sent(
                    self.command,
                    url.path,
                    dict(parse_qsl(url.query)),
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length),
                )
                api.sent.append(sent)
                answer = api.responder(sent) if api.responder else api.queue.pop(0) if api.queue else Answer(599)
                self.send_response(answer.status)
                for k, v in answer.headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(answer.body)))
                self.end_headers()
                self.wfile.write(answer.body)

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def job_json(job_id: str = "job_00000000000000000001", **changes: Any) -> dict[str, Any]:
    """A Job object as the API answers it."""
    job: dict[str, Any] = {
        "jobId": job_id,
        "serviceType": "transcription",
        "status": "queued",
        "priority": "normal",
        "workspaceId": "wsp_1",
        "projectId": "prj_1",
        "workspacePlan": "pro",
        "input": {"sourceType": "s3_direct", "bucket": "media", "sourceKey": "a.mp4", "textSourceId": "txt_1"},
        "resultSummary": None,
        "cancelRequestedAt": None,
        "cancelRequestedByLabel": None,
        "cancelRequestedByKind": None,
        "cancelRequestedByUserId": None,
        "cancelRequestedByApiKeyId": None,
        "cancelMode": None,
        "sourceDisplayName": "a.mp4",
        "webhookUrl": None,
        "currentStage": None,
        "attemptCount": 0,
        "lastError": None,
        "error": None,
        "createdByLabel": "key",
        "createdByKind": "api_key",
        "apiKeyLabel": "key",
        "apiKeyId": "pak_1",
        "isConsoleKey": False,
        "createdAt": "2026-11-27T10:00:00.000Z",
        "updatedAt": "2026-11-27T10:00:00.000Z",
        "startedAt": None,
        "completedAt": None,
        "userMetadata": None,
        "processingLeaseUntil": None,
    }
    job.update(changes)
    return job
