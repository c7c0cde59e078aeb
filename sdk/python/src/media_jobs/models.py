"""The records the API answers, as dataclasses (docs/api.md).

Field names are the API's in snake_case (``textSourceId`` is ``text_source_id``). Timestamps are
the API's ISO 8601 UTC strings. Open-ended objects (a job's ``input``, ``resultSummary``,
``userMetadata``) stay dicts. test/node/python-client-openapi.test.ts checks these fields against
the schemas of the served OpenAPI document: every property the document names is a field here, with
the same JSON type, nullability and (for enums) values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

JobStatus = Literal["pending", "queued", "processing", "cancelling", "completed", "failed", "cancelled"]
ServiceType = Literal[
    "transcription",
    "clip_generation",
    "thumbnail",
    "metadata",
    "indexer",
    "summarization",
    "translation",
    "dubbing",
    "voice_creation",
    "transcript_files",
    "voice_consent",
]
TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled"})

ExportFormat = Literal["docx", "md", "srt", "vtt", "txt", "json"]
ExportLayer = Literal["segments", "glossary", "raw"]
TranscriptLayer = Literal["segments", "glossary", "raw", "visual"]
SearchMode = Literal["hybrid", "dense", "sparse"]


def is_terminal_status(status: str) -> bool:
    """A job in this status changes no more (contracts/service-types.ts)."""
    return status in TERMINAL_STATUSES


@dataclass(frozen=True, kw_only=True)
class ErrorInfo:
    code: str
    message: str


@dataclass(frozen=True, kw_only=True)
class JobLastError:
    at: str
    message: str


@dataclass(frozen=True, kw_only=True)
class Job:
    """The Job object (docs/api.md, "Job object"), as ``GET /v1/jobs/{jobId}`` answers it."""

    job_id: str
    service_type: ServiceType
    status: JobStatus
    priority: Literal["low", "normal", "high"]
    workspace_id: str
    project_id: str
    workspace_plan: str | None = None
    input: dict[str, Any]
    result_summary: dict[str, Any] | None
    cancel_requested_at: str | None
    cancel_requested_by_label: str | None
    cancel_requested_by_kind: Literal["user", "api_key", "console"] | None
    cancel_requested_by_user_id: str | None
    cancel_requested_by_api_key_id: str | None
    cancel_mode: Literal["graceful"] | None
    source_display_name: str | None = None
    webhook_url: str | None
    current_stage: str | None
    attempt_count: int
    last_error: JobLastError | None
    error: ErrorInfo | None
    created_by_label: str
    created_by_kind: Literal["user", "api_key", "console"]
    api_key_label: str | None
    api_key_id: str
    is_console_key: bool
    created_at: str
    updated_at: str
    started_at: str | None
    completed_at: str | None
    user_metadata: dict[str, Any] | None
    processing_lease_until: str | None

    @property
    def text_source_id(self) -> str | None:
        """The transcript a transcription job writes (known from create on), or None for other service types."""
        value = self.input.get("textSourceId")
        return value if isinstance(value, str) else None


@dataclass(frozen=True, kw_only=True)
class Pagination:
    page: int
    limit: int
    total: int
    total_pages: int


@dataclass(frozen=True, kw_only=True)
class JobPage:
    """One page of ``GET /v1/jobs``: the jobs and the envelope's ``metadata.pagination``."""

    data: list[Job]
    pagination: Pagination


@dataclass(frozen=True, kw_only=True)
class ProgressEntry:
    stage: str
    event: Literal["started", "completed", "failed", "skipped"]
    at: str
    details: dict[str, Any] | None = None
    error: ErrorInfo | None = None


@dataclass(frozen=True, kw_only=True)
class AttemptHistory:
    attempt: int
    failed_at: str
    error: ErrorInfo
    progress: list[ProgressEntry]


@dataclass(frozen=True, kw_only=True)
class JobProgress:
    """``GET /v1/jobs/{jobId}/progress``: the stage timeline (console sessions only)."""

    progress: list[ProgressEntry]
    current_stage: str | None
    attempt_history: list[AttemptHistory]


@dataclass(frozen=True, kw_only=True)
class WebhookDelivery:
    """One attempt of ``GET /v1/jobs/{jobId}/webhook-deliveries``."""

    delivery_id: str
    event_id: str
    event: str
    url: str
    attempt: int
    outcome: str
    response_status: int | None
    error: str | None
    duration_ms: float | None
    next_retry_at: str | None
    at: str


@dataclass(frozen=True, kw_only=True)
class Word:
    word: str
    start: float
    end: float
    confidence: float | None = None
    speaker: str | None = None


@dataclass(frozen=True, kw_only=True)
class Segment:
    id: int
    start: float
    end: float
    text: str
    words: list[Word] | None = None
    confidence: float | None = None
    #: ``SPEAKER_00`` … when the transcript was diarized.
    speaker: str | None = None


@dataclass(frozen=True, kw_only=True)
class Speaker:
    label: str
    name: str | None
    speaking_sec: float
    segment_count: int


@dataclass(frozen=True, kw_only=True)
class Diarization:
    engine: str
    model: str


@dataclass(frozen=True, kw_only=True)
class VisualChunk:
    index: int
    start: float
    end: float
    summary: str
    descriptors: dict[str, float | str]


@dataclass(frozen=True, kw_only=True)
class TranscriptSource:
    connection_id: str
    bucket: str
    source_key: str


@dataclass(frozen=True, kw_only=True)
class TranscriptOutputKeys:
    """The four files a transcription writes to the customer's bucket."""

    full_text: str
    segments: str
    srt: str
    vtt: str


@dataclass(frozen=True, kw_only=True)
class TranscriptRecord:
    """``GET /v1/transcriptions/{transcriptionId}`` (docs/api.md, "Transcriptions"). Unrequested layers are None."""

    transcription_id: str
    text_source_id: str
    project_id: str
    job_id: str
    status: Literal["pending", "completed", "failed"]
    language: str | None
    language_confidence: float | None
    duration_sec: float | None
    engine: str | None
    model: str | None
    revision: int
    segment_count: int
    speakers: list[Speaker]
    diarization: Diarization | None
    segments: list[Segment] | None = None
    glossary: list[Segment] | None = None
    raw: list[Segment] | None = None
    visual_chunks: list[VisualChunk] | None = None
    thumbnails: list[dict[str, Any]]
    metadata: dict[str, Any] | None
    translation: dict[str, list[Segment]] | None = None
    source: TranscriptSource | None
    output_keys: TranscriptOutputKeys | None
    #: What was redacted (entity types and places, never the values), or None.
    redaction: dict[str, Any] | None
    output_keys_revision: int | None
    output_keys_stale: bool | None
    created_at: str
    updated_at: str


@dataclass(frozen=True, kw_only=True)
class TranscriptFile:
    """A transcript export: the file and what its headers say of it."""

    content: bytes
    content_type: str
    #: The name the API suggests saving it under (``Content-Disposition``).
    file_name: str | None
    #: The transcript revision it was rendered from.
    revision: int | None

    def text(self) -> str:
        """The file as UTF-8 text (every format but ``docx``)."""
        return self.content.decode("utf-8")


@dataclass(frozen=True, kw_only=True)
class Clip:
    index: int
    start: float
    end: float
    duration_sec: float
    title: str
    score: float
    score_parts: dict[str, float]
    text: str
    video_key: str
    poster_key: str
    width: int
    height: int
    framing: dict[str, float] | None = None


@dataclass(frozen=True, kw_only=True)
class RedactedAudio:
    mode: Literal["silence", "tone"]
    spans: int


@dataclass(frozen=True, kw_only=True)
class ClipGenerationRecord:
    """``GET /v1/clip-generations/{clipGenerationId}``: the analysis fields are None until it completes."""

    clip_generation_id: str
    project_id: str
    job_id: str
    text_source_id: str
    status: Literal["pending", "completed", "failed"]
    output_prefix: str
    options: dict[str, Any]
    clip_count: int
    clips: list[Clip] = field(default_factory=lambda: [])
    layout: str | None = None
    layout_reason: str | None = None
    fill_style: str | None = None
    category: str | None = None
    category_confidence: float | None = None
    category_source: str | None = None
    captions: bool | None = None
    source_duration_sec: float | None = None
    candidate_count: int | None = None
    engines: dict[str, Any] | None = None
    redacted_audio: RedactedAudio | None = None
    #: The transcript revision the record was made from, the transcript's now, and whether they differ.
    transcript_revision: int | None
    current_revision: int | None
    stale: bool | None
    created_at: str
    updated_at: str


@dataclass(frozen=True, kw_only=True)
class SpeakerName:
    label: str
    name: str | None


@dataclass(frozen=True, kw_only=True)
class SearchHit:
    rank: int
    #: Reciprocal rank fusion in hybrid mode; cosine similarity (dense) or BM25 relevance (sparse).
    score: float
    text_source_id: str
    chunk_id: str
    start: float
    end: float
    segment_ids: list[int]
    text: str
    #: ``text``, HTML-escaped, with the matched terms in ``<mark>…</mark>``.
    marked_text: str
    marks: list[tuple[int, int]]
    dense_rank: int | None
    sparse_rank: int | None
    rerank_score: float | None
    speakers: list[SpeakerName]


@dataclass(frozen=True, kw_only=True)
class SearchGroupHit:
    chunk_id: str
    rank: int
    score: float
    start: float
    end: float


@dataclass(frozen=True, kw_only=True)
class SearchGroup:
    text_source_id: str
    total: int
    best_score: float
    hits: list[SearchGroupHit]


@dataclass(frozen=True, kw_only=True)
class SearchResponse:
    """``POST /v1/catalog/search``."""

    query: str
    mode: str
    results: list[SearchHit]
    groups: list[SearchGroup] = field(default_factory=lambda: [])
    #: The envelope's metadata: collection, engines, candidates, tookMs, warnings …
    metadata: dict[str, Any] = field(default_factory=lambda: {}, metadata={"envelope": True})


@dataclass(frozen=True, kw_only=True)
class JobWebhookEvent:
    """The body of a job's webhook delivery (queues/webhook-consumer.ts, ``webhookPayload``)."""

    type: str
    event: Literal["queued", "processing", "cancelling", "completed", "failed", "cancelled"]
    event_id: str
    occurred_at: str
    job_id: str
    customer_job_ref: str | None
    result_summary: dict[str, Any] | None = None
    job: Job


WorkflowStatus = Literal["running", "cancelling", "completed", "failed", "cancelled"]
WorkflowStepStatus = Literal[
    "waiting", "pending", "queued", "processing", "cancelling", "completed", "failed", "cancelled", "skipped"
]
WORKFLOW_ENDED_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled"})


@dataclass(frozen=True, kw_only=True)
class WorkflowStep:
    """A step of a workflow as it runs: ``waiting`` for its dependencies, then its job's status, or ``skipped``."""

    id: str
    service_type: ServiceType
    depends_on: list[str]
    status: WorkflowStepStatus
    job_id: str | None
    error: ErrorInfo | None
    created_at: str | None
    ended_at: str | None


@dataclass(frozen=True, kw_only=True)
class WorkflowTrigger:
    """The uploaded object that started a workflow through a storage connection's trigger."""

    connection_id: str
    bucket: str
    key: str
    version_id: str | None
    e_tag: str | None
    size: float | None
    event_name: str
    event_time: str | None


@dataclass(frozen=True, kw_only=True)
class Workflow:
    """``GET /v1/workflows/{workflowId}`` (docs/api.md, "Workflows")."""

    workflow_id: str
    workspace_id: str
    project_id: str
    preset_id: str | None
    status: WorkflowStatus
    steps: list[WorkflowStep]
    #: Credits the whole workflow needs per meter, as checked against the plan at create.
    credits: dict[str, float]
    trigger: WorkflowTrigger | None
    variables: dict[str, str]
    error: ErrorInfo | None
    webhook_url: str | None
    user_metadata: dict[str, Any] | None
    created_by_label: str
    cancel_requested_at: str | None
    created_at: str
    updated_at: str
    ended_at: str | None

    def step(self, step_id: str) -> WorkflowStep:
        """The step with this id (KeyError when there is none)."""
        for s in self.steps:
            if s.id == step_id:
                return s
        raise KeyError(step_id)


@dataclass(frozen=True, kw_only=True)
class WorkflowPage:
    data: list[Workflow]
    pagination: Pagination


@dataclass(frozen=True, kw_only=True)
class PresetStep:
    """A step as a preset (or a workflow create) writes it: a job body with an id and the ids it waits for."""

    id: str
    service_type: ServiceType
    input: dict[str, Any]
    depends_on: list[str] | None = None
    webhook_url: str | None = None
    user_metadata: dict[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class Preset:
    """A named workflow saved per project (``/v1/presets``)."""

    preset_id: str
    project_id: str
    name: str
    description: str | None
    steps: list[PresetStep]
    #: The ``{{vars.x}}`` names its steps use: a workflow from it must fill each.
    variables: list[str]
    webhook_url: str | None
    user_metadata: dict[str, Any] | None
    created_at: str
    updated_at: str


@dataclass(frozen=True, kw_only=True)
class WorkflowWebhookEvent:
    """The body of a workflow's one webhook delivery, sent when the whole workflow ends."""

    type: str
    event: str
    event_id: str
    occurred_at: str
    workflow_id: str
    customer_job_ref: str | None
    workflow: Workflow
