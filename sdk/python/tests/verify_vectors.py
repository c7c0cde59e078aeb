"""Verifies webhook deliveries given on stdin and prints each verdict as JSON.

Used by test/node/python-client.test.ts with deliveries signed by the npm ``standardwebhooks``
package. Input: ``[{"name", "body", "headers", "secrets", "now", "tolerance"?}]``; output:
``{name: {"verified": bool, "reason": str | None, "jobId": str | None}}``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from media_jobs import DEFAULT_TOLERANCE_SEC, WebhookVerificationError, parse_job_event, verify_webhook


def verdict(vector: dict[str, Any]) -> dict[str, Any]:
    try:
        payload = verify_webhook(
            vector["body"],
            vector["headers"],
            vector["secrets"],
            now=vector["now"],
            tolerance=vector.get("tolerance", DEFAULT_TOLERANCE_SEC),
        )
    except WebhookVerificationError as err:
        return {"verified": False, "reason": err.reason, "jobId": None}
    return {"verified": True, "reason": None, "jobId": parse_job_event(payload).job.job_id}


if __name__ == "__main__":
    vectors: list[dict[str, Any]] = json.load(sys.stdin)
    json.dump({v["name"]: verdict(v) for v in vectors}, sys.stdout)
