from __future__ import annotations

import json
import unittest

from media_jobs import Job, MediaJobsError

from .fake_api import Answer, envelope, error, job_json
from .support import ClientTestCase

TRANSCRIPTION = {
    "serviceType": "transcription",
    "input": {"sourceType": "s3_direct", "connectionId": "stc_1", "bucket": "media", "sourceKey": "a.mp4"},
}


class CreateTest(ClientTestCase):
    def test_create_posts_the_body_with_a_fresh_idempotency_key_and_returns_the_job(self) -> None:
        self.api.queue = [envelope(job_json(), 201), envelope(job_json("job_2"), 201)]
        job = self.mj.jobs.create(TRANSCRIPTION)
        self.mj.jobs.create(TRANSCRIPTION)
        first, second = self.api.sent
        self.assertEqual((first.method, first.path), ("POST", "/v1/jobs"))
        self.assertEqual(first.json(), TRANSCRIPTION)
        self.assertEqual(first.headers["authorization"], "Bearer sk_prj_test")
        self.assertRegex(first.headers["idempotency-key"], r"^[0-9a-f-]{36}$")
        self.assertNotEqual(first.headers["idempotency-key"], second.headers["idempotency-key"])
        self.assertIsInstance(job, Job)
        self.assertEqual((job.job_id, job.status, job.text_source_id), ("job_00000000000000000001", "queued", "txt_1"))

    def test_a_retry_after_a_5xx_sends_the_same_key_and_the_same_bytes(self) -> None:
        self.api.queue = [error(503, "unavailable"), envelope(job_json(), 201)]
        self.mj.jobs.create(TRANSCRIPTION, idempotency_key="ep42")
        first, retry = self.api.sent
        self.assertEqual([first.headers["idempotency-key"], retry.headers["idempotency-key"]], ["ep42", "ep42"])
        self.assertEqual(first.body, retry.body)
        self.assertEqual(len(self.slept), 1)

    def test_a_409_while_the_first_request_with_the_key_is_in_flight_is_retried(self) -> None:
        self.api.queue = [error(409, "conflict"), envelope(job_json(), 201)]
        self.assertEqual(self.mj.jobs.create(TRANSCRIPTION).job_id, "job_00000000000000000001")

    def test_retries_are_bounded_and_honour_retry_after(self) -> None:
        self.api.queue = [error(503, "unavailable", retry_after="7")] * 3
        with self.assertRaises(MediaJobsError) as raised:
            self.mj.jobs.get("job_1")
        self.assertEqual(len(self.api.sent), 3)
        self.assertEqual(self.slept, [7.0, 7.0])
        self.assertEqual((raised.exception.status, raised.exception.retry_after), (503, 7.0))

    def test_a_4xx_is_raised_at_once_as_a_typed_error_from_the_envelope(self) -> None:
        body = {
            "data": None,
            "error": {
                "code": "validationFailed",
                "message": "bad",
                "details": [{"path": "input.bucket", "issue": "required"}],
            },
            "metadata": {"quota": {"limit": 3}},
        }
        self.api.queue = [Answer(422, json.dumps(body).encode(), {"x-request-id": "req_1"})]
        with self.assertRaises(MediaJobsError) as raised:
            self.mj.jobs.create(TRANSCRIPTION)
        err = raised.exception
        self.assertEqual((err.status, err.code, err.message, err.request_id), (422, "validationFailed", "bad", "req_1"))
        self.assertEqual([(d.path, d.issue) for d in err.details], [("input.bucket", "required")])
        self.assertEqual(err.metadata, {"quota": {"limit": 3}})
        self.assertEqual(len(self.api.sent), 1)

    def test_an_answer_that_is_not_the_envelope_is_an_invalid_response(self) -> None:
        self.api.queue = [Answer(502, b"<html>bad gateway</html>")] * 3
        with self.assertRaises(MediaJobsError) as raised:
            self.mj.jobs.get("job_1")
        self.assertEqual((raised.exception.code, raised.exception.status), ("invalidResponse", 502))

    def test_no_answer_at_all_is_a_network_error_with_status_0(self) -> None:
        self.api.close()
        with self.assertRaises(MediaJobsError) as raised:
            self.client(max_retries=0).jobs.get("job_1")
        self.assertEqual((raised.exception.status, raised.exception.code), (0, "networkError"))

    def test_a_redirect_is_not_followed_so_the_key_stays_with_the_api(self) -> None:
        self.api.queue = [Answer(302, b"", {"location": "http://127.0.0.2:1/steal"})]
        with self.assertRaises(MediaJobsError) as raised:
            self.client(max_retries=0).jobs.get("job_1")
        self.assertEqual((raised.exception.status, raised.exception.code), (302, "invalidResponse"))
        self.assertEqual(len(self.api.sent), 1)


class ReadTest(ClientTestCase):
    def test_a_field_the_client_does_not_know_is_ignored(self) -> None:
        self.api.queue = [envelope(job_json(addedInV1_5="anything"))]
        self.assertEqual(self.mj.jobs.get("job_1").status, "queued")

    def test_a_path_parameter_is_one_encoded_segment(self) -> None:
        self.api.queue = [envelope(job_json())]
        self.mj.jobs.get("../transcriptions/txt_1")
        self.assertEqual(self.api.sent[0].path, "/v1/jobs/..%2Ftranscriptions%2Ftxt_1")

    def test_list_sends_filters_comma_separated_and_reads_the_pagination(self) -> None:
        self.api.queue = [
            envelope([job_json()], metadata={"pagination": {"page": 2, "limit": 1, "total": 3, "totalPages": 3}})
        ]
        page = self.mj.jobs.list(page=2, limit=1, statuses=["failed", "cancelled"], service_types=["transcription"])
        self.assertEqual(
            self.api.sent[0].query,
            {"page": "2", "limit": "1", "statuses": "failed,cancelled", "serviceTypes": "transcription"},
        )
        self.assertEqual((page.pagination.total_pages, len(page.data)), (3, 1))

    def test_list_all_walks_every_page(self) -> None:
        def page(n: int) -> Answer:
            return envelope(
                [job_json(f"job_{n}")], metadata={"pagination": {"page": n, "limit": 1, "total": 2, "totalPages": 2}}
            )

        self.api.queue = [page(1), page(2)]
        self.assertEqual([j.job_id for j in self.mj.jobs.list_all(limit=1)], ["job_1", "job_2"])
        self.assertEqual([s.query["page"] for s in self.api.sent], ["1", "2"])

    def test_cancel_posts_to_the_jobs_cancel_route(self) -> None:
        self.api.queue = [envelope(job_json(status="cancelling"))]
        self.assertEqual(self.mj.jobs.cancel("job_1").status, "cancelling")
        self.assertEqual((self.api.sent[0].method, self.api.sent[0].path), ("POST", "/v1/jobs/job_1/cancel"))

    def test_progress_reads_the_stage_timeline(self) -> None:
        timeline = {
            "progress": [
                {
                    "stage": "download",
                    "event": "completed",
                    "at": "2026-11-27T10:00:01.000Z",
                    "details": {"fraction": 1},
                }
            ],
            "currentStage": "transcribe",
            "attemptHistory": [],
        }
        self.api.queue = [envelope(timeline)]
        progress = self.mj.jobs.progress("job_1")
        self.assertEqual((progress.current_stage, progress.progress[0].details), ("transcribe", {"fraction": 1}))

    def test_the_policy_is_read_without_a_key(self) -> None:
        self.api.queue = [envelope({"serviceTypes": {}})]
        self.client().jobs.policy("transcription")
        self.assertNotIn("authorization", self.api.sent[0].headers)
        self.assertEqual(self.api.sent[0].query, {"serviceType": "transcription"})


class BookmarkTest(ClientTestCase):
    def test_every_call_sends_the_newest_bookmark_any_answer_brought(self) -> None:
        seen: list[str] = []
        mj = self.client(on_bookmark=seen.append)
        self.api.queue = [
            envelope(job_json(), 201, x_d1_bookmark="0000002a-00000001"),
            envelope(job_json(), x_d1_bookmark="00000029-00000009"),
            error(404, "notFound", x_d1_bookmark="0000002b-00000000"),
            envelope(job_json()),
        ]
        mj.jobs.create(TRANSCRIPTION)
        mj.jobs.get("job_1")
        with self.assertRaises(MediaJobsError):
            mj.jobs.get("job_x")
        mj.jobs.get("job_1")
        sent = [s.headers.get("x-d1-bookmark") for s in self.api.sent]
        # An older bookmark (a lagging replica's) never replaces a newer one; an error's counts too.
        self.assertEqual(sent, [None, "0000002a-00000001", "0000002a-00000001", "0000002b-00000000"])
        self.assertEqual(seen, ["0000002a-00000001", "0000002b-00000000"])
        self.assertEqual(mj.bookmark, "0000002b-00000000")

    def test_a_client_can_start_from_another_clients_bookmark(self) -> None:
        self.api.queue = [envelope(job_json())]
        self.client(bookmark="0000002a-00000001").jobs.get("job_1")
        self.assertEqual(self.api.sent[0].headers["x-d1-bookmark"], "0000002a-00000001")


if __name__ == "__main__":
    unittest.main()
