"""Transcribe a video in your bucket, read the transcript, index it by a preset's workflow, search it, take webhooks.

Configuration from the environment: MEDIA_JOBS_URL, MEDIA_JOBS_KEY (a project key),
MEDIA_JOBS_WEBHOOK_SECRET (the project's ``whsec_…``), CONNECTION_ID, BUCKET, SOURCE_KEY and
WEBHOOK_HOST (where the API can reach this machine; default 127.0.0.1); to download the transcript's
files from the bucket, S3_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION and
S3_PATH_STYLE=1 for MinIO-like stores. Prints one JSON object of what it saw.
test/e2e/python-client.e2e.test.ts runs it against the local stack.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from media_jobs import (
    MediaJobs,
    MediaJobsError,
    S3Client,
    WebhookVerificationError,
    download_outputs,
    parse_job_event,
    parse_workflow_event,
    transcript_outputs,
    verify_webhook,
)


class WebhookReceiver:
    """An HTTP endpoint that verifies each delivery (Standard Webhooks) before accepting it."""

    def __init__(self, secret: str, host: str) -> None:
        self.events: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                try:
                    payload = verify_webhook(body, dict(self.headers.items()), secret)
                    if str(payload["type"]).startswith("workflow."):
                        flow = parse_workflow_event(payload)
                        receiver.events.append({"event": flow.type, "id": flow.workflow_id, "verified": True})
                    else:
                        event = parse_job_event(payload)
                        receiver.events.append({"event": event.type, "id": event.job_id, "verified": True})
                    self.send_response(204)
                except WebhookVerificationError as err:
                    receiver.events.append({"verified": False, "reason": err.reason})
                    self.send_response(401)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer((host, 0), Handler)
        self.url = f"http://{host}:{self._server.server_address[1]}/hooks/media-jobs"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def wait_for(self, event: str, of: str, timeout: float = 60) -> bool:
        """Whether a verified ``event`` (``job.completed``, ``workflow.completed`` …) of ``of`` arrived in time."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(e.get("event") == event and e.get("id") == of for e in self.events):
                return True
            time.sleep(0.2)
        return False

    def close(self) -> None:
        self._server.shutdown()


def main() -> None:
    env = os.environ
    mj = MediaJobs(env["MEDIA_JOBS_URL"], env["MEDIA_JOBS_KEY"])
    hooks = WebhookReceiver(env["MEDIA_JOBS_WEBHOOK_SECRET"], env.get("WEBHOOK_HOST", "127.0.0.1"))
    request = {
        "serviceType": "transcription",
        "input": {
            "sourceType": "s3_direct",
            "connectionId": env["CONNECTION_ID"],
            "bucket": env["BUCKET"],
            "sourceKey": env["SOURCE_KEY"],
            "options": {"language": "en"},
        },
        "webhookUrl": hooks.url,
        "userMetadata": {"customerJobRef": "python-example"},
    }

    # The same Idempotency-Key twice: one job, the second call answered with it.
    created = mj.jobs.create(request, idempotency_key="python-example-1")
    replayed = mj.jobs.create(request, idempotency_key="python-example-1")
    seen: list[str] = []
    done = mj.jobs.wait(created.job_id, interval=0.5, timeout=200, on_update=lambda job: seen.append(job.status))
    if done.status != "completed":
        sys.exit(f"transcription {done.job_id} {done.status}: {done.error}")
    text_source_id = str((done.result_summary or {})["textSourceId"])

    record = mj.transcriptions.get(text_source_id, layers=["segments"])
    text = mj.transcriptions.text(text_source_id)
    srt = mj.transcriptions.export(text_source_id, "srt")

    # Indexing as a saved preset's workflow: its step names the transcript through a variable.
    preset = mj.presets.create(
        "index-a-transcript",
        [{"id": "index", "serviceType": "indexer", "input": {"textSourceIds": ["{{vars.textSourceId}}"]}}],
        description="Index one transcript for catalog search",
    )
    started = mj.workflows.run_preset(
        preset.preset_id, variables={"textSourceId": text_source_id}, webhook_url=hooks.url
    )
    indexed = mj.workflows.wait(started.workflow_id, interval=0.5, timeout=200)
    words = [w for s in record.segments or [] for w in re.findall(r"[^\W\d_]{7,}", s.text.lower())]
    query = words[len(words) // 2]
    found = mj.catalog.search(query, limit=5)

    try:
        mj.jobs.get("job_doesnotexist")
        missing: dict[str, Any] = {}
    except MediaJobsError as err:
        missing = {"status": err.status, "code": err.code}

    files: dict[str, str] = {}
    if "S3_ENDPOINT" in env:
        # The job's own files, from the bucket with the bucket's credentials: outputs never pass through the API.
        s3 = S3Client(
            env["S3_ENDPOINT"],
            env["AWS_ACCESS_KEY_ID"],
            env["AWS_SECRET_ACCESS_KEY"],
            region=env.get("AWS_REGION", "us-east-1"),
            path_style=env.get("S3_PATH_STYLE") == "1",
        )
        with tempfile.TemporaryDirectory() as directory:
            for path in download_outputs(s3, transcript_outputs(record), directory):
                files[path.name] = path.read_text("utf-8")

    delivered = {
        "job": hooks.wait_for("job.completed", done.job_id),
        "workflow": hooks.wait_for("workflow.completed", indexed.workflow_id),
    }
    hooks.close()
    mj.presets.delete(preset.preset_id)
    print(
        json.dumps(
            {
                "jobId": created.job_id,
                "replayedJobId": replayed.job_id,
                "statusesSeen": seen,
                "status": done.status,
                "textSourceId": text_source_id,
                "bucketSrtKey": created.input["resolvedOutputKeys"]["srt"],
                "segmentCount": record.segment_count,
                "segments": [{"start": s.start, "end": s.end, "text": s.text} for s in record.segments or []],
                "text": text,
                "srt": {"content": srt.text(), "contentType": srt.content_type, "revision": srt.revision},
                "preset": {"presetId": preset.preset_id, "variables": preset.variables},
                "workflow": {
                    "workflowId": indexed.workflow_id,
                    "presetId": indexed.preset_id,
                    "status": indexed.status,
                    "steps": [{"id": s.id, "status": s.status, "jobId": s.job_id} for s in indexed.steps],
                },
                "search": {
                    "query": query,
                    "mode": found.mode,
                    "hits": [{"textSourceId": h.text_source_id, "markedText": h.marked_text} for h in found.results],
                    "tookMs": found.metadata.get("tookMs"),
                },
                "downloaded": files,
                "notFound": missing,
                "completedDelivered": delivered,
                "webhooks": hooks.events,
                "bookmark": mj.bookmark,
            }
        )
    )


if __name__ == "__main__":
    main()
