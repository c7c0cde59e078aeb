"""Header handling of the verifier. Signatures made by the npm ``standardwebhooks`` package (the
library the Worker signs with) are checked in test/node/python-client.test.ts."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import unittest

from media_jobs import WebhookVerificationError, parse_job_event, verify_webhook

from .fake_api import job_json

SECRET = "whsec_" + base64.b64encode(b"a-32-byte-secret-for-the-tests!!").decode()
NOW = 1_800_000_000
BODY = json.dumps(
    {
        "type": "job.completed",
        "event": "completed",
        "eventId": "msg_1",
        "occurredAt": "2027-01-15T08:00:00.000Z",
        "jobId": "job_1",
        "customerJobRef": "ep-42",
        "resultSummary": {"textSourceId": "txt_1"},
        "job": job_json("job_1", status="completed"),
    }
)


def signed(body: str = BODY, timestamp: int = NOW) -> dict[str, str]:
    """Signed as the Standard Webhooks specification says, written here from the spec."""
    key = base64.b64decode(SECRET.removeprefix("whsec_"))
    mac = hmac.new(key, f"msg_1.{timestamp}.{body}".encode(), hashlib.sha256).digest()
    return {
        "Webhook-Id": "msg_1",
        "Webhook-Timestamp": str(timestamp),
        "Webhook-Signature": "v1," + base64.b64encode(mac).decode(),
    }


def reason(body: str | bytes, headers: dict[str, str], secret: str = SECRET) -> str:
    try:
        verify_webhook(body, headers, secret, now=NOW)
    except WebhookVerificationError as err:
        return err.reason
    return "verified"


class VerifyTest(unittest.TestCase):
    def test_header_names_match_whatever_their_case_and_bytes_verify_like_text(self) -> None:
        self.assertEqual(verify_webhook(BODY.encode(), signed(), SECRET, now=NOW)["jobId"], "job_1")

    def test_a_verified_job_delivery_parses_into_a_typed_event(self) -> None:
        event = parse_job_event(verify_webhook(BODY, signed(), SECRET, now=NOW))
        self.assertEqual((event.event, event.customer_job_ref, event.job.status), ("completed", "ep-42", "completed"))

    def test_missing_headers_are_refused(self) -> None:
        self.assertEqual(reason(BODY, {"webhook-id": "msg_1"}), "missingHeaders")

    def test_a_timestamp_that_is_not_unix_seconds_is_refused(self) -> None:
        self.assertEqual(reason(BODY, {**signed(), "Webhook-Timestamp": "2027-01-15T08:00:00Z"}), "badTimestamp")

    def test_a_signature_entry_that_is_not_v1_base64_is_skipped_not_fatal(self) -> None:
        headers = signed()
        headers["Webhook-Signature"] = "v2,abc v1,@@@ " + headers["Webhook-Signature"]
        self.assertEqual(reason(BODY, headers), "verified")

    def test_a_secret_that_is_not_base64_is_reported_as_such(self) -> None:
        self.assertEqual(reason(BODY, signed(), "whsec_not base64!"), "badSecret")


if __name__ == "__main__":
    unittest.main()
