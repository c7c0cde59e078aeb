from __future__ import annotations

import unittest

from media_jobs import Job, MediaJobsError, WaitTimeoutError

from .fake_api import envelope, error, job_json
from .support import ClientTestCase


def at(status: str, second: int) -> dict[str, object]:
    return job_json(status=status, updatedAt=f"2026-11-27T10:00:{second:02d}.000Z")


class WaitTest(ClientTestCase):
    def test_polls_until_a_terminal_status_and_returns_a_failed_job_rather_than_raising(self) -> None:
        failed = {**at("failed", 3), "error": {"code": "source_unreadable", "message": "no audio"}}
        self.api.queue = [envelope(at("queued", 0)), envelope(at("cancelling", 1)), envelope(failed)]
        job = self.mj.jobs.wait("job_1")
        self.assertEqual(job.status, "failed")
        self.assertEqual(job.error and job.error.code, "source_unreadable")
        self.assertEqual(len(self.api.sent), 3)

    def test_the_interval_grows_while_nothing_changes_and_drops_back_when_the_job_moves(self) -> None:
        self.api.queue = [
            envelope(at("queued", 0)),
            envelope(at("queued", 0)),
            envelope(at("queued", 0)),
            envelope(at("processing", 5)),
            envelope(at("completed", 9)),
        ]
        updates: list[Job] = []
        self.mj.jobs.wait("job_1", interval=1, max_interval=2, on_update=updates.append)
        self.assertEqual(self.slept, [1, 1.5, 2, 1])
        self.assertEqual([j.status for j in updates], ["queued", "processing", "completed"])

    def test_a_429_or_503_waits_for_its_retry_after_and_polls_again(self) -> None:
        self.api.queue = [
            envelope(at("processing", 0)),
            error(429, "rateLimited", retry_after="4"),
            envelope(at("completed", 2)),
        ]
        self.assertEqual(self.client(max_retries=0).jobs.wait("job_1").status, "completed")
        self.assertEqual(self.slept, [1.0, 4.0])

    def test_other_errors_end_the_wait(self) -> None:
        self.api.queue = [error(404, "notFound")]
        with self.assertRaises(MediaJobsError) as raised:
            self.mj.jobs.wait("job_x")
        self.assertEqual(raised.exception.code, "notFound")

    def test_after_the_timeout_it_raises_with_the_last_state_seen(self) -> None:
        self.api.responder = lambda _: envelope(at("processing", 0))
        with self.assertRaises(WaitTimeoutError) as raised:
            self.mj.jobs.wait("job_1", interval=0.01, timeout=0.05)
        self.assertEqual((raised.exception.job.status, raised.exception.timeout), ("processing", 0.05))

    def test_submit_and_wait_creates_then_waits(self) -> None:
        self.api.queue = [envelope(at("queued", 0), 201), envelope(at("completed", 1))]
        job = self.mj.jobs.submit_and_wait({"serviceType": "transcription", "input": {}}, idempotency_key="k")
        self.assertEqual(job.status, "completed")
        self.assertEqual([s.method for s in self.api.sent], ["POST", "GET"])


if __name__ == "__main__":
    unittest.main()
