"""Standard Webhooks verification, the way the Worker signs (queues/webhook-consumer.ts).

``webhook-signature`` holds space-separated ``v1,<base64 HMAC-SHA256>`` entries (two during a secret
rotation) of ``{webhook-id}.{webhook-timestamp}.{raw body}``, keyed by the base64 part of ``whsec_…``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ._decode import DecodeError, decode
from .errors import WebhookVerificationError
from .models import JobWebhookEvent, WorkflowWebhookEvent

DEFAULT_TOLERANCE_SEC = 300


def _header(headers: Mapping[str, str | Sequence[str]], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value if isinstance(value, str) else " ".join(value)
    return None


def _secret_key(secret: str) -> bytes:
    raw = secret.removeprefix("whsec_")
    try:
        return base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError) as err:
        raise WebhookVerificationError("badSecret", "webhook secret must be whsec_ followed by base64") from err


def _signatures(header: str) -> list[bytes]:
    found: list[bytes] = []
    for entry in header.split(" "):
        version, _, value = entry.partition(",")
        if version != "v1" or not value:
            continue
        try:
            found.append(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            continue
    return found


def verify_webhook(
    raw_body: bytes | str,
    headers: Mapping[str, str | Sequence[str]],
    secret: str | Sequence[str],
    *,
    tolerance: int = DEFAULT_TOLERANCE_SEC,
    now: float | None = None,
) -> dict[str, Any]:
    """Verifies a delivery and returns its parsed body.

    ``raw_body`` must be the bytes as received (not re-serialised JSON). ``headers`` is any mapping
    (names matched case-insensitively). ``secret`` may be a list: during a rotation, accept the new
    and the old secret. ``tolerance`` is how far ``webhook-timestamp`` may be from now, either way,
    in seconds (the replay guard). Raises ``WebhookVerificationError`` when anything does not verify.
    """
    msg_id = _header(headers, "webhook-id")
    timestamp = _header(headers, "webhook-timestamp")
    signature = _header(headers, "webhook-signature")
    if not msg_id or not timestamp or not signature:
        raise WebhookVerificationError(
            "missingHeaders", "webhook-id, webhook-timestamp and webhook-signature are required"
        )
    if not timestamp.isascii() or not timestamp.isdigit():
        raise WebhookVerificationError("badTimestamp", f"webhook-timestamp is not Unix seconds: {timestamp}")
    now_sec = int(time.time() if now is None else now)
    if abs(now_sec - int(timestamp)) > tolerance:
        raise WebhookVerificationError(
            "timestampOutOfTolerance", f"webhook-timestamp {timestamp} is more than {tolerance} s from now"
        )
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else raw_body
    signed = f"{msg_id}.{timestamp}.".encode() + body
    candidates = _signatures(signature)
    for s in [secret] if isinstance(secret, str) else secret:
        expected = hmac.new(_secret_key(s), signed, hashlib.sha256).digest()
        if any(hmac.compare_digest(expected, candidate) for candidate in candidates):
            parsed: dict[str, Any] = json.loads(body)
            return parsed
    raise WebhookVerificationError("badSignature", "no webhook-signature entry matches the body and secret")


def parse_job_event(payload: Mapping[str, Any]) -> JobWebhookEvent:
    """A verified job delivery's body as a typed event (dedupe on ``event_id``)."""
    try:
        return decode(JobWebhookEvent, dict(payload))
    except DecodeError as err:
        raise ValueError(f"not a job webhook event: {err}") from err


def parse_workflow_event(payload: Mapping[str, Any]) -> WorkflowWebhookEvent:
    """A verified workflow delivery's body (``type`` ``workflow.completed`` …) as a typed event."""
    try:
        return decode(WorkflowWebhookEvent, dict(payload))
    except DecodeError as err:
        raise ValueError(f"not a workflow webhook event: {err}") from err
