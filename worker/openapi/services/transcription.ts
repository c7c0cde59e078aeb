import { z } from "zod";
import { RedactionRecordSchema } from "../../../contracts/redaction";
import { DiarizationRecordSchema, SegmentSchema, SpeakerSchema } from "../../../contracts/transcript";
import { GlossaryTermSchema, SegmentEditSchema, SpeakersEditSchema, TranscriptQuery } from "../../services/transcription/routes";
import { ExportQuery } from "../../services/transcription/export-route";
import { TRANSCRIPT_REVISION_HEADER } from "../../../contracts/transcript-exports";
import { EXPORT_CONTENT_TYPES } from "../../transcripts/exports/formats";
import { operations } from "../operation";
import { JobSchema } from "../../../contracts/job";
import { OutputKeysStalenessFields, REGENERATE_OUTPUTS, RegenerateRequestSchema } from "../../../contracts/regenerate";
import { EXAMPLE_ID } from "../examples";

/** worker/services/transcription/routes.ts: transcripts, segment edits and the project glossary. */

const txtParam = { transcriptionId: "The transcript's id (`txt_…`, the job's `textSourceId`)." };
const GlossaryTerm = z.object({ termId: z.string(), term: z.string(), preferred: z.string(), createdAt: z.string() });

export const transcriptionOperations = operations([
  {
    method: "get",
    path: "/v1/transcriptions/:transcriptionId",
    tag: "Transcripts",
    summary: "Get a transcript",
    description: "The record with the layers asked for (`layers`, all by default): segments, glossary, raw, visual chunks, translations.",
    access: "project",
    permission: "transcript:read",
    params: txtParam,
    query: TranscriptQuery,
    queryNotes: { layers: "Comma-separated layers to include: segments, glossary, raw, visual, translation (default: all)." },
    data: z.looseObject({
      transcriptionId: z.string(),
      status: z.string(),
      revision: z.number().int(),
      speakers: z.array(SpeakerSchema),
      diarization: DiarizationRecordSchema.nullable(),
      redaction: RedactionRecordSchema.nullable(),
      segments: z.array(SegmentSchema).optional(),
      outputKeys: z.record(z.string(), z.string()).nullable(),
      ...OutputKeysStalenessFields,
    }),
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/v1/transcriptions/:transcriptionId/unredacted",
    tag: "Transcripts",
    summary: "Get a redacted transcript's text as heard",
    description:
      'An extension (docs/api.md "Your data"): the segments before redaction, kept only when the project\'s data policy keeps unredacted text; `segments` is null otherwise, and for a transcript that was not redacted (its own segments are the text as heard). Needs its own permission, which no key holds unless granted.',
    access: "project",
    permission: "transcript:read_unredacted",
    params: txtParam,
    data: z.object({ transcriptionId: z.string(), redacted: z.boolean(), segments: z.array(SegmentSchema).nullable() }),
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/v1/transcriptions/:transcriptionId/regenerate",
    tag: "Transcripts",
    summary: "Regenerate a transcript's outputs",
    description:
      "An extension. Makes the outputs asked for again from the transcript's current revision, each by the ordinary job that " +
      "makes it (`transcript_files` for the files in the bucket, `translation`, `indexer`, `metadata`, `summarization`, " +
      "`dubbing`), created with the caller's key: each job meets its own plan limits and checks. `true` regenerates an output, " +
      '`"stale"` only when it reads stale; `outputs: "stale"` takes every stale output. A job refused is listed in `refused` ' +
      "beside the ones made; when none could be made the first refusal is the answer. 422 `nothingToRegenerate` when the " +
      "request selects nothing. Needs `job:create` and `transcript:write`.",
    access: "project",
    permission: "job:create and transcript:write",
    params: txtParam,
    body: RegenerateRequestSchema,
    bodyExample: { outputs: { files: true, translations: ["es"], metadata: "stale", dubbings: "stale" } },
    status: 202,
    data: z.object({
      transcriptionId: z.string(),
      revision: z.number().int().describe("The transcript revision the jobs make their outputs from."),
      jobs: z.array(
        z.object({
          output: z.enum(REGENERATE_OUTPUTS),
          languageKey: z.string().optional(),
          dubbingId: z.string().optional(),
          job: JobSchema,
        }),
      ),
      refused: z.array(
        z.object({
          output: z.enum(REGENERATE_OUTPUTS),
          languageKey: z.string().optional(),
          dubbingId: z.string().optional(),
          error: z.object({ code: z.string(), message: z.string(), details: z.array(z.object({ path: z.string(), issue: z.string() })) }),
        }),
      ),
    }),
    errors: ["notFound", "quotaExceeded"],
  },
  {
    method: "patch",
    path: "/v1/transcriptions/:transcriptionId/segments",
    tag: "Transcripts",
    summary: "Edit segments",
    description: "Revision-checked: send the revision you read; a stale one answers 409 and changes nothing.",
    access: "project",
    permission: "transcript:write",
    params: txtParam,
    body: SegmentEditSchema,
    bodyExample: { revision: 3, segments: [{ id: 12, text: "Welcome back to the show." }] },
    data: z.object({ transcriptionId: z.string(), revision: z.number().int(), segments: z.array(SegmentSchema) }),
    errors: ["notFound", "conflict"],
  },
  {
    method: "patch",
    path: "/v1/transcriptions/:transcriptionId/speakers",
    tag: "Transcripts",
    summary: "Name and merge speakers",
    description:
      "An extension. Names (null clears one) and merges of a diarized transcript's speakers, revision-checked like segment edits. A merge moves the `from` label's segments and words to `into`; to move one segment, edit it with `speaker`.",
    access: "project",
    permission: "transcript:write",
    params: txtParam,
    body: SpeakersEditSchema,
    bodyExample: { revision: 3, names: { SPEAKER_00: "Ada Lovelace" }, merge: [{ from: "SPEAKER_02", into: "SPEAKER_01" }] },
    data: z.object({ transcriptionId: z.string(), revision: z.number().int(), speakers: z.array(SpeakerSchema) }),
    errors: ["notFound", "conflict"],
  },
  {
    method: "get",
    path: "/v1/transcriptions/:transcriptionId/export",
    tag: "Transcripts",
    summary: "Export a transcript as a file",
    description:
      "The transcript rendered now, as a file to save: Word (`docx`), Markdown (`md`), SRT, WebVTT, plain text (`txt`) or the " +
      "segments JSON, with speaker names as they are now and every segment edit. The answer is the file itself, not the JSON " +
      'envelope, with `Content-Disposition: attachment; filename="…"` named after the source. A transcript that is not ' +
      "completed answers 422 (`jobNotCompleted`).",
    access: "project",
    permission: "transcript:read",
    params: txtParam,
    query: ExportQuery,
    queryNotes: {
      format: "docx, md, srt, vtt, txt or json.",
      layer: "Which segments: segments (current, edited; default), glossary or raw.",
      speakers:
        "true (default): name speakers in SRT (first cue of a turn), WebVTT (voice spans), text, Markdown and Word; false: leave them out. JSON always carries them.",
    },
    raw: {
      contentType: EXPORT_CONTENT_TYPES,
      description: "The file, in the content type of its format.",
      headers: {
        "Content-Disposition": '`attachment; filename="<source name>.<ext>"`, with `filename*` for a name beyond ASCII.',
        [TRANSCRIPT_REVISION_HEADER]: "The transcript revision the file was rendered from.",
      },
    },
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/v1/glossary",
    tag: "Transcripts",
    summary: "List glossary terms",
    access: "project",
    permission: "glossary:read",
    data: z.array(GlossaryTerm),
    dataExample: [{ termId: EXAMPLE_ID.glossaryTerm, term: "media jobs", preferred: "Media Jobs", createdAt: "2026-11-23T16:00:00.000Z" }],
  },
  {
    method: "post",
    path: "/v1/glossary",
    tag: "Transcripts",
    summary: "Add a glossary term",
    description:
      "At most 500 terms per project. The first few completed transcripts' glossary layers are rebuilt in the request " +
      "(`metadata.rebuiltTranscripts`); the rest (`metadata.pendingTranscripts`) are rebuilt before they are next read.",
    access: "project",
    permission: "glossary:write",
    body: GlossaryTermSchema,
    bodyExample: { term: "media jobs", preferred: "Media Jobs" },
    status: 201,
    data: GlossaryTerm,
    errors: ["conflict"],
  },
  {
    method: "delete",
    path: "/v1/glossary/:termId",
    tag: "Transcripts",
    summary: "Remove a glossary term",
    access: "project",
    permission: "glossary:write",
    params: { termId: "The term's id." },
    data: z.object({ termId: z.string(), deleted: z.literal(true) }),
    errors: ["notFound"],
  },
]);
