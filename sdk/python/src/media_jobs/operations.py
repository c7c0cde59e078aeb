"""Every API route the client calls, one row each.

The transport builds requests from these rows only (no path is written anywhere else in the
package), so a check can read this table and compare it with the OpenAPI document route by route
(test/node/python-client-openapi.test.ts), as sdk/client/operations.ts is for the TypeScript client.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]


@dataclass(frozen=True, kw_only=True)
class Operation:
    method: Method
    #: OpenAPI-style template: ``{name}`` segments are filled from the call's path parameters.
    path: str
    #: ``project``: a project key or console session in ``Authorization``; ``none``: sent without one.
    auth: Literal["project", "none"] = "project"
    #: The status of a successful answer.
    success: Literal[200, 201] = 200
    #: The query parameters the client may send.
    query: tuple[str, ...] = ()
    #: Safe to send again after a 5xx or a lost connection: reads; cancel (idempotent by the spec);
    #: creates made so by their Idempotency-Key (same key, same body: the stored answer is replayed).
    retry: bool = True
    #: Request headers the operation sends beyond Authorization, Content-Type and the bookmark.
    headers: tuple[str, ...] = ()


_JOB_FILTERS = ("jobId", "customerJobRef", "user", "input", "statuses", "serviceTypes", "sort", "sortDir")

OPERATIONS: dict[str, Operation] = {
    "createJob": Operation(method="POST", path="/v1/jobs", success=201, headers=("Idempotency-Key",)),
    "getJob": Operation(method="GET", path="/v1/jobs/{jobId}"),
    "listJobs": Operation(method="GET", path="/v1/jobs", query=("page", "limit", *_JOB_FILTERS)),
    "cancelJob": Operation(method="POST", path="/v1/jobs/{jobId}/cancel"),
    "getJobProgress": Operation(method="GET", path="/v1/jobs/{jobId}/progress"),
    "listWebhookDeliveries": Operation(method="GET", path="/v1/jobs/{jobId}/webhook-deliveries"),
    "getJobPolicy": Operation(method="GET", path="/v1/jobs/policy", auth="none", query=("serviceType",)),
    "getTranscription": Operation(method="GET", path="/v1/transcriptions/{transcriptionId}", query=("layers",)),
    "exportTranscription": Operation(
        method="GET",
        path="/v1/transcriptions/{transcriptionId}/export",
        query=("format", "layer", "speakers"),
    ),
    "getClipGeneration": Operation(method="GET", path="/v1/clip-generations/{clipGenerationId}"),
    # A read despite the POST: searching twice changes nothing.
    "searchCatalog": Operation(method="POST", path="/v1/catalog/search"),
    "createWorkflow": Operation(method="POST", path="/v1/workflows", success=201, headers=("Idempotency-Key",)),
    "listWorkflows": Operation(method="GET", path="/v1/workflows", query=("page", "limit", "statuses", "presetId")),
    "getWorkflow": Operation(method="GET", path="/v1/workflows/{workflowId}"),
    "cancelWorkflow": Operation(method="POST", path="/v1/workflows/{workflowId}/cancel"),
    # Preset writes are not retried: a second create after a lost answer would save a second preset.
    "createPreset": Operation(method="POST", path="/v1/presets", success=201, retry=False),
    "listPresets": Operation(method="GET", path="/v1/presets"),
    "getPreset": Operation(method="GET", path="/v1/presets/{presetId}"),
    "replacePreset": Operation(method="PUT", path="/v1/presets/{presetId}"),
    "deletePreset": Operation(method="DELETE", path="/v1/presets/{presetId}"),
}

_PARAM = re.compile(r"\{([^}]+)\}")


def fill_path(template: str, params: dict[str, str]) -> str:
    """Fills a path template; each value is percent-encoded as one segment, so an id cannot reach another route."""

    def one(match: re.Match[str]) -> str:
        value = params.get(match.group(1), "")
        if value == "":
            raise ValueError(f"missing path parameter {match.group(1)} for {template}")
        return quote(value, safe="")

    return _PARAM.sub(one, template)
