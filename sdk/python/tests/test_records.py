from __future__ import annotations

import unittest
from typing import Any

from media_jobs import OutputObject, transcript_outputs, transcription_job_outputs
from media_jobs._decode import decode
from media_jobs.models import Job, TranscriptRecord

from .fake_api import Answer, envelope, job_json
from .support import ClientTestCase


def transcript_json(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "transcriptionId": "txt_1",
        "textSourceId": "txt_1",
        "projectId": "prj_1",
        "jobId": "job_1",
        "status": "completed",
        "language": "en",
        "languageConfidence": None,
        "durationSec": 12.5,
        "engine": "pocketsphinx",
        "model": "en-us",
        "revision": 2,
        "segmentCount": 1,
        "speakers": [{"label": "SPEAKER_00", "name": "Ada", "speakingSec": 3, "segmentCount": 1}],
        "diarization": {"engine": "local", "model": "x"},
        "segments": [
            {"id": 0, "start": 0, "end": 3, "text": "hello", "words": [{"word": "hello", "start": 0, "end": 1}]}
        ],
        "thumbnails": [],
        "metadata": None,
        "source": {"connectionId": "stc_1", "bucket": "media", "sourceKey": "a.mp4"},
        "outputKeys": {"fullText": "o/a.txt", "segments": "o/a.json", "srt": "o/a.srt", "vtt": "o/a.vtt"},
        "redaction": None,
        "outputKeysRevision": 1,
        "outputKeysStale": True,
        "createdAt": "2026-11-27T10:00:00.000Z",
        "updatedAt": "2026-11-27T10:00:00.000Z",
    }
    record.update(changes)
    return record


class TranscriptTest(ClientTestCase):
    def test_get_asks_for_the_layers_and_types_the_record(self) -> None:
        self.api.queue = [envelope(transcript_json())]
        record = self.mj.transcriptions.get("txt_1", layers=["segments", "raw"])
        self.assertEqual(self.api.sent[0].query, {"layers": "segments,raw"})
        self.assertEqual(record.speakers[0].name, "Ada")
        self.assertEqual(record.segments and record.segments[0].words and record.segments[0].words[0].word, "hello")
        self.assertIsNone(record.raw)  # a layer the answer left out
        self.assertIsInstance(record.duration_sec, float)

    def test_segments_reads_one_layer(self) -> None:
        self.api.queue = [envelope(transcript_json())]
        self.assertEqual([s.text for s in self.mj.transcriptions.segments("txt_1")], ["hello"])
        self.assertEqual(self.api.sent[0].query, {"layers": "segments"})

    def test_export_returns_the_file_its_name_and_the_revision_it_was_rendered_from(self) -> None:
        self.api.queue = [
            Answer(
                200,
                b"1\n00:00:00,000 --> 00:00:03,000\nhello\n",
                {
                    "content-type": "application/x-subrip; charset=utf-8",
                    "content-disposition": "attachment; filename=\"talk.srt\"; filename*=UTF-8''Vort%C3%A4ge.srt",
                    "x-transcript-revision": "2",
                },
            )
        ]
        file = self.mj.transcriptions.export("txt_1", "srt", layer="glossary", speakers=False)
        self.assertEqual(self.api.sent[0].query, {"format": "srt", "layer": "glossary", "speakers": "false"})
        self.assertEqual(self.api.sent[0].headers["accept"], "*/*")
        self.assertEqual((file.file_name, file.revision), ("Vortäge.srt", 2))
        self.assertTrue(file.text().startswith("1\n00:00:00,000"))

    def test_the_files_a_transcript_wrote_are_named_by_bucket_and_key(self) -> None:
        record = decode(TranscriptRecord, transcript_json())
        self.assertIn(OutputObject(bucket="media", key="o/a.txt", kind="fullText"), transcript_outputs(record))
        job = decode(Job, job_json(input={"bucket": "media", "resolvedOutputKeys": {"srt": "o/a.srt"}}))
        self.assertEqual([o.file_name for o in transcription_job_outputs(job)], ["a.srt"])


class SearchTest(ClientTestCase):
    def test_search_sends_the_api_names_and_keeps_the_envelope_metadata(self) -> None:
        hit = {
            "rank": 1,
            "score": 0.03,
            "textSourceId": "txt_1",
            "chunkId": "chk_1",
            "start": 1,
            "end": 4,
            "segmentIds": [0],
            "text": "the dough rises",
            "markedText": "the <mark>dough</mark> rises",
            "marks": [[4, 9]],
            "denseRank": 1,
            "sparseRank": None,
            "rerankScore": None,
            "speakers": [],
        }
        group = {
            "textSourceId": "txt_1",
            "total": 1,
            "bestScore": 0.03,
            "hits": [{k: hit[k] for k in ("chunkId", "rank", "score", "start", "end")}],
        }
        self.api.queue = [
            envelope({"query": "dough", "mode": "sparse", "results": [hit], "groups": [group]}, metadata={"tookMs": 4})
        ]
        found = self.mj.catalog.search("dough", limit=5, mode="sparse", text_source_ids=["txt_1"], min_start=0)
        self.assertEqual(
            self.api.sent[0].json(),
            {"query": "dough", "limit": 5, "mode": "sparse", "textSourceIds": ["txt_1"], "minStart": 0},
        )
        self.assertEqual(
            (found.results[0].marks, found.groups[0].best_score, found.metadata), ([(4, 9)], 0.03, {"tookMs": 4})
        )


class ClipsTest(ClientTestCase):
    def test_outputs_names_each_clips_video_and_poster_in_the_clip_jobs_bucket(self) -> None:
        clip = {
            "index": 0,
            "start": 1,
            "end": 20,
            "durationSec": 19,
            "title": "t",
            "score": 0.8,
            "scoreParts": {"hook": 0.5},
            "text": "x",
            "videoKey": "c/clip-00.mp4",
            "posterKey": "c/clip-00.jpg",
            "width": 1080,
            "height": 1920,
        }
        record: dict[str, Any] = {
            "clipGenerationId": "clp_1",
            "projectId": "prj_1",
            "jobId": "job_9",
            "textSourceId": "txt_1",
            "status": "completed",
            "outputPrefix": "c/",
            "options": {},
            "clipCount": 1,
            "clips": [clip],
            "transcriptRevision": 1,
            "currentRevision": 1,
            "stale": False,
            "createdAt": "2026-11-27T10:00:00.000Z",
            "updatedAt": "2026-11-27T10:00:00.000Z",
        }
        self.api.queue = [
            envelope(record),
            envelope(job_json("job_9", serviceType="clip_generation", input={"bucket": "out"})),
        ]
        outputs = self.mj.clips.outputs("clp_1")
        self.assertEqual(
            [(o.bucket, o.key, o.kind) for o in outputs],
            [("out", "c/clip-00.mp4", "video"), ("out", "c/clip-00.jpg", "poster")],
        )
        self.assertEqual(self.api.sent[1].path, "/v1/jobs/job_9")


if __name__ == "__main__":
    unittest.main()
