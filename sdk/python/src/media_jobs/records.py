"""The records jobs leave behind: transcripts (and their exports), clip generations, catalog search."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import unquote

from .jobs import JobsResource
from .models import (
    Clip,
    ClipGenerationRecord,
    ExportFormat,
    ExportLayer,
    SearchMode,
    SearchResponse,
    Segment,
    TranscriptFile,
    TranscriptLayer,
    TranscriptRecord,
)
from .outputs import OutputObject, clip_outputs
from .transport import Transport

TRANSCRIPT_REVISION_HEADER = "x-transcript-revision"


class TranscriptionsResource:
    """``GET /v1/transcriptions/{transcriptionId}`` and its export. The job's own files are in your bucket."""

    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def get(self, transcription_id: str, *, layers: Sequence[TranscriptLayer] | None = None) -> TranscriptRecord:
        return self._t.call_into(
            TranscriptRecord,
            "getTranscription",
            params={"transcriptionId": transcription_id},
            query={"layers": ",".join(layers) if layers else None},
        )

    def segments(self, transcription_id: str, *, layer: ExportLayer = "segments") -> list[Segment]:
        """The segments of one layer: ``segments`` (the current, editable one; the default), ``glossary`` or ``raw``."""
        record = self.get(transcription_id, layers=[layer])
        found = {"segments": record.segments, "glossary": record.glossary, "raw": record.raw}[layer]
        return found or []

    def export(
        self,
        transcription_id: str,
        format: ExportFormat,
        *,
        layer: ExportLayer | None = None,
        speakers: bool | None = None,
    ) -> TranscriptFile:
        """``GET /v1/transcriptions/{transcriptionId}/export``: the transcript as a file, rendered now.

        Word (``docx``), Markdown, SRT, WebVTT, text or the segments JSON, with every segment edit and
        speaker name so far.
        """
        res = self._t.file(
            "exportTranscription",
            params={"transcriptionId": transcription_id},
            query={"format": format, "layer": layer, "speakers": None if speakers is None else str(speakers).lower()},
        )
        revision = res.headers.get(TRANSCRIPT_REVISION_HEADER)
        return TranscriptFile(
            content=res.content,
            content_type=res.headers.get("content-type", "application/octet-stream"),
            file_name=_disposition_file_name(res.headers.get("content-disposition")),
            revision=int(revision) if revision and revision.isdigit() else None,
        )

    def text(self, transcription_id: str, format: ExportFormat = "txt", **options: Any) -> str:
        """``export`` as a string: ``txt`` by default, or ``srt``, ``vtt``, ``md``, ``json``."""
        return self.export(transcription_id, format, **options).text()


_EXTENDED_NAME = re.compile(r"filename\*\s*=\s*([\w!#$%&+^`{}~-]+)'[^']*'([^;\s]+)", re.IGNORECASE)
_PLAIN_NAME = re.compile(r'filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))', re.IGNORECASE)


def _disposition_file_name(header: str | None) -> str | None:
    """The file name of a ``Content-Disposition`` header: ``filename*`` (RFC 8187, Unicode) over ``filename``."""
    if not header:
        return None
    extended = _EXTENDED_NAME.search(header)
    if extended:
        try:
            return unquote(extended.group(2), encoding=extended.group(1), errors="strict")
        except (LookupError, UnicodeDecodeError):
            pass
    plain = _PLAIN_NAME.search(header)
    if not plain:
        return None
    quoted = plain.group(1)
    return re.sub(r"\\(.)", r"\1", quoted) if quoted is not None else plain.group(2)


class ClipsResource:
    """Clip generations: the record, its clips, and where their files are."""

    def __init__(self, transport: Transport, jobs: JobsResource) -> None:
        self._t = transport
        self._jobs = jobs

    def get(self, clip_generation_id: str) -> ClipGenerationRecord:
        return self._t.call_into(
            ClipGenerationRecord, "getClipGeneration", params={"clipGenerationId": clip_generation_id}
        )

    def list(self, clip_generation_id: str) -> list[Clip]:
        """The clips of a clip generation, best first (empty until it completes)."""
        return self.get(clip_generation_id).clips

    def outputs(self, clip_generation_id: str) -> list[OutputObject]:
        """Each clip's MP4 and poster as bucket objects. The bucket is the clip job's ``input.bucket``."""
        record = self.get(clip_generation_id)
        job = self._jobs.get(record.job_id)
        bucket = job.input.get("bucket")
        if not isinstance(bucket, str):
            raise ValueError(f"job {job.job_id} names no bucket")
        return clip_outputs(record, bucket)


class CatalogResource:
    def __init__(self, transport: Transport) -> None:
        self._t = transport

    def search(
        self,
        query: str,
        *,
        limit: int | None = None,
        mode: SearchMode | None = None,
        text_source_ids: Sequence[str] | None = None,
        language: str | None = None,
        min_start: float | None = None,
        max_end: float | None = None,
    ) -> SearchResponse:
        """``POST /v1/catalog/search`` (permission ``ai:search``)."""
        body: dict[str, Any] = {"query": query}
        for key, value in (
            ("limit", limit),
            ("mode", mode),
            ("textSourceIds", list(text_source_ids) if text_source_ids is not None else None),
            ("language", language),
            ("minStart", min_start),
            ("maxEnd", max_end),
        ):
            if value is not None:
                body[key] = value
        env = self._t.call("searchCatalog", body=body)
        return replace(self._t.decode(SearchResponse, env.data, "searchCatalog"), metadata=env.metadata)
