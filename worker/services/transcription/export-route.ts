import { Hono } from "hono";
import { z } from "zod";
import { namesOf, speakerList } from "../../../contracts/speakers";
import type { Segment } from "../../../contracts/transcript";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb } from "../../db/client";
import type { AppBindings } from "../../env";
import { validationError } from "../../errors";
import { queryWith } from "../../http/validate";
import { blobStore } from "../../storage/blobs";
import type { ExportDocument } from "../../transcripts/exports/document";
import { renderExport } from "../../transcripts/exports/formats";
import { EXPORT_FORMATS, EXPORT_LAYERS, TRANSCRIPT_REVISION_HEADER } from "../../../contracts/transcript-exports";
import { glossaryLayerOf, ownedTranscript, readLayer } from "../../transcripts/store";

export const ExportQuery = z.strictObject({
  format: z.enum(EXPORT_FORMATS),
  layer: z.enum(EXPORT_LAYERS).default("segments"),
  speakers: z.enum(["true", "false"]).default("true"),
});

/**
 * `GET /v1/transcriptions/{transcriptionId}/export`: the transcript as a file to save, rendered now
 * from the layer asked for, with the speaker names it has now. The bucket's files were written
 * when the job ran; this one includes every segment edit and rename since.
 */
export const transcriptExportRoutes = new Hono<AppBindings>().get("/:transcriptionId/export", async (c) => {
  const p = principalOf(c);
  const q = queryWith(c, ExportQuery);
  const db = getDb(c.env.DB);
  const blobs = blobStore(c.env.BLOBS);
  const t = await ownedTranscript(db, projectOf(p), c.req.param("transcriptionId"));
  if (t.status !== "completed")
    throw validationError(`transcription ${t.id} is ${t.status}; only a completed transcript can be exported`, [
      { path: "transcriptionId", issue: "jobNotCompleted" },
    ]);
  const segments = (q.layer === "glossary" ? await glossaryLayerOf(db, blobs, t) : await readLayer<Segment[]>(db, blobs, t, q.layer)) ?? [];
  // The stored list is the current layer's; the other layers keep the labels they were written with, named the same.
  const speakers = q.layer === "segments" ? t.speakers : speakerList(segments, namesOf(t.speakers));
  const doc: ExportDocument = {
    transcriptionId: t.id,
    title: sourceTitle(t.sourceKey) ?? t.id,
    language: t.language ?? "",
    durationSec: t.durationSec ?? 0,
    engine: t.engine ?? "",
    model: t.model ?? "",
    revision: t.revision,
    diarization: t.diarization ?? null,
    speakers,
    segments,
    naming: { speakers, speakerLabels: q.speakers === "true" },
  };
  const file = await renderExport(doc, q.format);
  return c.body(file.body, 200, {
    "content-type": file.contentType,
    "content-disposition": file.disposition,
    [TRANSCRIPT_REVISION_HEADER]: String(t.revision),
    // A file of the transcript as it is now: never kept by a cache, or a later edit would be hidden.
    "cache-control": "no-store",
  });
});

/** `uploads/Interview 3.mp4` → `Interview 3`: the source's file name without its extension. */
function sourceTitle(key: string | null): string | null {
  const file = key?.split("/").filter(Boolean).at(-1);
  if (!file) return null;
  const dot = file.lastIndexOf(".");
  return dot > 0 ? file.slice(0, dot) : file;
}
