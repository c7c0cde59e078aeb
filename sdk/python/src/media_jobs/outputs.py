"""Where a job's output files are.

Outputs live in the customer's bucket, not behind the API: these helpers name the objects a job
wrote (from the Job's ``input.resolvedOutputKeys``, the transcript's ``outputKeys``, the clip
generation's ``clips[]``), for whatever S3 client you fetch them with.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ._decode import as_object
from .models import ClipGenerationRecord, Job, TranscriptRecord


@dataclass(frozen=True, kw_only=True)
class OutputObject:
    bucket: str
    key: str
    #: What it is: ``srt``, ``vtt``, ``fullText``, ``segments``, a clip's ``video`` or ``poster``.
    kind: str

    @property
    def file_name(self) -> str:
        """The key's last segment, a file name to save it under."""
        parts = [p for p in self.key.split("/") if p]
        return parts[-1] if parts else self.key


def transcription_job_outputs(job: Job) -> list[OutputObject]:
    """The four files of a transcription job (known from create on)."""
    keys = as_object(job.input.get("resolvedOutputKeys"))
    bucket = job.input.get("bucket")
    if job.service_type != "transcription" or keys is None or not isinstance(bucket, str):
        return []
    return [OutputObject(bucket=bucket, key=str(key), kind=str(kind)) for kind, key in keys.items()]


def transcript_outputs(record: TranscriptRecord) -> list[OutputObject]:
    """The four files of a transcript record.

    They hold the transcript as transcribed: later segment edits are not written back.
    """
    if record.output_keys is None or record.source is None:
        return []
    bucket = record.source.bucket
    names = {"full_text": "fullText"}
    return [
        OutputObject(bucket=bucket, key=key, kind=names.get(kind, kind))
        for kind, key in asdict(record.output_keys).items()
    ]


def clip_outputs(record: ClipGenerationRecord, bucket: str) -> list[OutputObject]:
    """Each clip's MP4 and poster JPEG. ``bucket`` is the clip job's ``input.bucket``."""
    return [
        OutputObject(bucket=bucket, key=key, kind=kind)
        for clip in record.clips
        for kind, key in (("video", clip.video_key), ("poster", clip.poster_key))
    ]
