import { and, asc, count, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { newId } from "../../../contracts/ids";
import { SpeakerLabelSchema, type Segment, type Speaker } from "../../../contracts/transcript";
import { namesOf, SPEAKER_NAME_MAX_CHARS, speakerList } from "../../../contracts/speakers";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb, type Db } from "../../db/client";
import { glossaryTerms } from "../../db/schema";
import type { AppBindings } from "../../env";
import { conflict, notFound, validationError } from "../../errors";
import { ok } from "../../http/envelope";
import { csvListOf } from "../../http/query-lists";
import { jsonBody, queryWith } from "../../http/validate";
import { blobStore, type BlobStore } from "../../storage/blobs";
import { GLOSSARY_MAX_TERMS, GLOSSARY_REBUILDS_PER_REQUEST, GLOSSARY_TERM_MAX_CHARS } from "../../transcripts/glossary";
import {
  currentGlossary,
  glossaryLayerOf,
  ownedTranscript,
  readLayer,
  rebuildGlossaryLayer,
  replaceSegments,
  replaceSpeakers,
  staleGlossaryCount,
  staleGlossaryTranscripts,
  TranscriptTooLargeError,
  type Layer,
} from "../../transcripts/store";
import { nowIso } from "../../../contracts/clock";
import { readThumbnails } from "../thumbnail/store";
import { metadataOf } from "../metadata/store";
import { transcriptExportRoutes } from "./export-route";
import { redactEdited } from "../../transcripts/redaction";
import { outputKeysStaleness } from "../../transcripts/staleness";

const LAYERS = ["segments", "glossary", "raw", "visual", "translation"] as const;

export const TranscriptQuery = z.strictObject({ layers: csvListOf(LAYERS, "layers").optional() });

export const SegmentEditSchema = z.strictObject({
  revision: z.number().int().min(0),
  segments: z
    .array(
      z.strictObject({
        id: z.number().int().nonnegative(),
        text: z.string().max(10_000).optional(),
        start: z.number().nonnegative().optional(),
        end: z.number().nonnegative().optional(),
        /** Who speaks the segment (its words follow): any label, so a speaker the diarization missed can be added. */
        speaker: SpeakerLabelSchema.optional(),
      }),
    )
    .min(1)
    .max(5000),
});

/** A speaker's name as a person gives it: trimmed, one line. */
const SpeakerNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(SPEAKER_NAME_MAX_CHARS)
  .regex(/^[^\u0000-\u001f\u007f]*$/, { message: "a speaker name is one line of text, without control characters" });

export const SpeakersEditSchema = z
  .strictObject({
    revision: z.number().int().min(0),
    /** New names by label; null clears one. */
    names: z.record(SpeakerLabelSchema, SpeakerNameSchema.nullable()).optional(),
    /** Each `from` label's segments become `into`'s, in order; `from` then leaves the list. */
    merge: z
      .array(z.strictObject({ from: SpeakerLabelSchema, into: SpeakerLabelSchema }))
      .min(1)
      .max(32)
      .optional(),
  })
  .refine((b) => b.names !== undefined || b.merge !== undefined, { message: "send names, merge, or both", path: ["names"] });

export const GlossaryTermSchema = z.strictObject({
  term: z.string().trim().min(1).max(GLOSSARY_TERM_MAX_CHARS),
  preferred: z.string().trim().min(1).max(GLOSSARY_TERM_MAX_CHARS),
});

export const transcriptRoutes = new Hono<AppBindings>()
  .get("/:transcriptionId", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, TranscriptQuery);
    const db = getDb(c.env.DB);
    const blobs = blobStore(c.env.BLOBS);
    const t = await ownedTranscript(db, projectOf(p), c.req.param("transcriptionId"));
    const wanted = new Set<string>(q.layers ?? LAYERS);
    const layer = async (name: Layer) => (wanted.has(name) ? ((await readLayer<unknown[]>(db, blobs, t, name)) ?? []) : undefined);
    // The spec's per-language arrays: `translation.<languageKey>`, each the current translation's segments.
    const translation = async () =>
      wanted.has("translation")
        ? Object.fromEntries(
            await Promise.all(
              Object.keys(t.translation).map(
                async (key) => [key, (await readLayer<unknown[]>(db, blobs, t, `translation.${key}`)) ?? []] as const,
              ),
            ),
          )
        : undefined;
    // Each layer is its own object: read together.
    const [segments, glossary, raw, visualChunks, translations, thumbnails, metadata] = await Promise.all([
      layer("segments"),
      wanted.has("glossary") ? glossaryLayerOf(db, blobs, t).then((g) => g ?? []) : undefined,
      layer("raw"),
      layer("visual"),
      translation(),
      readThumbnails(c.env, t),
      metadataOf(c.env, t),
    ]);
    return ok(c, {
      transcriptionId: t.id,
      textSourceId: t.id,
      projectId: t.projectId,
      jobId: t.jobId,
      status: t.status,
      language: t.language,
      languageConfidence: t.languageConfidence,
      durationSec: t.durationSec,
      engine: t.engine,
      model: t.model,
      revision: t.revision,
      segmentCount: t.segmentCount,
      speakers: t.speakers,
      diarization: t.diarization,
      redaction: t.redaction ?? null,
      segments,
      glossary,
      raw,
      visualChunks,
      thumbnails,
      metadata,
      translation: translations,
      source: t.bucket ? { connectionId: t.connectionId, bucket: t.bucket, sourceKey: t.sourceKey } : null,
      outputKeys: t.outputKeys,
      ...outputKeysStaleness(t),
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
    });
  })
  // The text as heard before redaction: its own route and permission, so no key reads it by default.
  .get("/:transcriptionId/unredacted", async (c) => {
    const p = principalOf(c);
    const db = getDb(c.env.DB);
    const t = await ownedTranscript(db, projectOf(p), c.req.param("transcriptionId"));
    const segments = t.redaction ? await readLayer<unknown[]>(db, blobStore(c.env.BLOBS), t, "unredacted") : null;
    // Null: the transcript was not redacted (its segments are the text as heard), or its project keeps no unredacted text.
    return ok(c, { transcriptionId: t.id, redacted: t.redaction !== null, segments });
  })
  .patch("/:transcriptionId/segments", async (c) => {
    const p = principalOf(c);
    const body = await jsonBody(c, SegmentEditSchema);
    const db = getDb(c.env.DB);
    const t = await editableTranscript(db, projectOf(p), c.req.param("transcriptionId"), body.revision);
    const blobs = blobStore(c.env.BLOBS);
    const current = (await readLayer<Segment[]>(db, blobs, t, "segments")) ?? [];
    const byId = new Map(current.map((s) => [s.id, s]));
    for (const [i, edit] of body.segments.entries()) {
      const seg = byId.get(edit.id);
      if (!seg) throw validationError(`segment ${edit.id} does not exist`, [{ path: `segments.${i}.id`, issue: `notFound:${edit.id}` }]);
      const next = {
        ...seg,
        ...(edit.text !== undefined ? { text: edit.text } : {}),
        ...(edit.start !== undefined ? { start: edit.start } : {}),
        ...(edit.end !== undefined ? { end: edit.end } : {}),
        ...(edit.speaker !== undefined ? spokenBy(seg, edit.speaker) : {}),
      };
      if (next.end < next.start)
        throw validationError(`segment ${edit.id} would end before it starts`, [{ path: `segments.${i}`, issue: "endBeforeStart" }]);
      byId.set(edit.id, next);
    }
    const edited = current.map((s) => byId.get(s.id) as Segment);
    // A redacted transcript stays redacted: what an edit types in is looked at as the recogniser's text was.
    const textEdited = new Set(body.segments.filter((e) => e.text !== undefined).map((e) => e.id));
    const { segments: updated, record } = t.redaction
      ? await redactEdited(t.redaction, edited, textEdited, t.language ?? "en")
      : { segments: edited, record: undefined };
    let revision: number | null;
    try {
      revision = await replaceSegments(db, blobs, t, body.revision, updated, undefined, record);
    } catch (err) {
      if (err instanceof TranscriptTooLargeError) throw validationError(err.message, [{ path: "segments", issue: "transcriptTooLarge" }]);
      throw err;
    }
    if (revision === null) throw changedMeanwhile();
    return ok(c, { transcriptionId: t.id, revision, segments: updated });
  })
  .patch("/:transcriptionId/speakers", async (c) => {
    const p = principalOf(c);
    const body = await jsonBody(c, SpeakersEditSchema);
    const db = getDb(c.env.DB);
    const t = await editableTranscript(db, projectOf(p), c.req.param("transcriptionId"), body.revision);
    const known = new Set(t.speakers.map((s) => s.label));
    const unknown = (label: string, path: string) =>
      validationError(`transcription ${t.id} has no speaker ${label}`, [{ path, issue: `unknownSpeaker:${label}` }]);
    for (const label of Object.keys(body.names ?? {})) if (!known.has(label)) throw unknown(label, `names.${label}`);
    const names: Record<string, string | null> = { ...namesOf(t.speakers), ...(body.names ?? {}) };
    let revision: number | null;
    let speakers: Speaker[];
    if (body.merge) {
      const into = new Map<string, string>();
      for (const [i, m] of body.merge.entries()) {
        if (!known.has(m.from)) throw unknown(m.from, `merge.${i}.from`);
        if (!known.has(m.into)) throw unknown(m.into, `merge.${i}.into`);
        if (into.has(m.from)) throw validationError(`speaker ${m.from} is merged twice`, [{ path: `merge.${i}.from`, issue: "duplicate" }]);
        into.set(m.from, m.into);
      }
      // One step each: a label merged away cannot also receive a merge, so neither order nor cycles matter.
      for (const [i, m] of body.merge.entries())
        if (into.has(m.into))
          throw validationError(`speaker ${m.into} is merged away by the same edit, so ${m.from} cannot be merged into it`, [
            { path: `merge.${i}.into`, issue: "mergedAway" },
          ]);
      const blobs = blobStore(c.env.BLOBS);
      const current = (await readLayer<Segment[]>(db, blobs, t, "segments")) ?? [];
      const merged = current.map((s) =>
        s.speaker !== undefined && into.has(s.speaker) ? { ...s, ...spokenBy(s, into.get(s.speaker)!) } : s,
      );
      speakers = speakerList(merged, names);
      revision = await replaceSegments(db, blobs, t, body.revision, merged, names);
    } else {
      speakers = t.speakers.map((s) => ({ ...s, name: names[s.label] ?? null }));
      revision = await replaceSpeakers(db, t.id, body.revision, speakers);
    }
    if (revision === null) throw changedMeanwhile();
    return ok(c, { transcriptionId: t.id, revision, speakers });
  })
  .route("/", transcriptExportRoutes);

/** A completed transcript of the project at `revision`: what an edit may change, or the error that says why not. */
async function editableTranscript(db: Db, projectId: string, id: string, revision: number) {
  const t = await ownedTranscript(db, projectId, id);
  if (t.status !== "completed")
    throw validationError(`transcription ${t.id} is not completed`, [{ path: "transcriptionId", issue: "jobNotCompleted" }]);
  if (revision !== t.revision)
    throw conflict(`revision ${revision} is stale; the transcript is at revision ${t.revision}`, [
      { path: "revision", issue: `staleRevision:${t.revision}` },
    ]);
  return t;
}

const changedMeanwhile = () =>
  conflict("the transcript changed while this edit was applied; reload and retry", [{ path: "revision", issue: "staleRevision" }]);

/** A segment moved to `speaker`, its words with it. */
function spokenBy(seg: Segment, speaker: string): Pick<Segment, "speaker" | "words"> {
  return { speaker, ...(seg.words ? { words: seg.words.map((w) => ({ ...w, speaker })) } : {}) };
}

/**
 * After a glossary change: the first GLOSSARY_REBUILDS_PER_REQUEST stale transcripts get their
 * glossary layer rebuilt now, each in one batch; the rest (and any whose rebuild failed) are rebuilt
 * when next read, since a layer is never served from an older glossary. Bounded whatever the
 * project's size, and never left half-applied: a transcript is either rebuilt or known to be stale.
 */
async function rebuildSomeGlossaryLayers(
  db: Db,
  blobs: BlobStore,
  projectId: string,
): Promise<{ rebuiltTranscripts: number; pendingTranscripts: number }> {
  const glossary = await currentGlossary(db, projectId);
  let rebuilt = 0;
  for (const t of await staleGlossaryTranscripts(db, projectId, glossary.stamp, GLOSSARY_REBUILDS_PER_REQUEST)) {
    try {
      if (await rebuildGlossaryLayer(db, blobs, t, glossary)) rebuilt++;
    } catch (err) {
      console.error(
        JSON.stringify({ level: "warn", msg: "glossary rebuild left for the next read", transcriptId: t.id, error: String(err) }),
      );
    }
  }
  return { rebuiltTranscripts: rebuilt, pendingTranscripts: await staleGlossaryCount(db, projectId, glossary.stamp) };
}

export const glossaryRoutes = new Hono<AppBindings>()
  .get("/", async (c) => {
    const p = principalOf(c);
    const rows = await getDb(c.env.DB)
      .select()
      .from(glossaryTerms)
      .where(eq(glossaryTerms.projectId, projectOf(p)))
      .orderBy(asc(glossaryTerms.term))
      .all();
    return ok(
      c,
      rows.map((r) => ({ termId: r.id, term: r.term, preferred: r.preferred, createdAt: r.createdAt })),
    );
  })
  .post("/", async (c) => {
    const p = principalOf(c);
    const body = await jsonBody(c, GlossaryTermSchema);
    const db = getDb(c.env.DB);
    const projectId = projectOf(p);
    const row = { id: newId("glossaryTerm"), projectId, term: body.term, preferred: body.preferred, createdAt: nowIso() };
    // One statement: the count and the insert cannot be raced past the cap by concurrent adds.
    const inserted = await c.env.DB.prepare(
      `INSERT INTO glossary_terms (id, project_id, term, preferred, created_at) SELECT ?, ?, ?, ?, ?
       WHERE (SELECT COUNT(*) FROM glossary_terms WHERE project_id = ?) < ? ON CONFLICT DO NOTHING RETURNING id`,
    )
      .bind(row.id, projectId, row.term, row.preferred, row.createdAt, projectId, GLOSSARY_MAX_TERMS)
      .first();
    if (!inserted) {
      const [{ n } = { n: 0 }] = await db.select({ n: count() }).from(glossaryTerms).where(eq(glossaryTerms.projectId, projectId));
      if (n >= GLOSSARY_MAX_TERMS)
        throw validationError(`the glossary holds ${n} terms, the most a project may have (${GLOSSARY_MAX_TERMS}); remove one first`, [
          { path: "term", issue: "glossaryFull" },
        ]);
      throw conflict(`the glossary already has the term ${body.term}`, [{ path: "term", issue: "duplicate" }]);
    }
    const rebuild = await rebuildSomeGlossaryLayers(db, blobStore(c.env.BLOBS), projectId);
    return ok(c, { termId: row.id, term: row.term, preferred: row.preferred, createdAt: row.createdAt }, rebuild, 201);
  })
  .delete("/:termId", async (c) => {
    const p = principalOf(c);
    const db = getDb(c.env.DB);
    const projectId = projectOf(p);
    const removed = await db
      .delete(glossaryTerms)
      .where(and(eq(glossaryTerms.id, c.req.param("termId")), eq(glossaryTerms.projectId, projectId)))
      .returning();
    if (removed.length === 0)
      throw notFound(`glossary term not found: ${c.req.param("termId")}`, [{ path: "termId", issue: `notFound:${c.req.param("termId")}` }]);
    return ok(c, { termId: removed[0]?.id, deleted: true }, await rebuildSomeGlossaryLayers(db, blobStore(c.env.BLOBS), projectId));
  });
