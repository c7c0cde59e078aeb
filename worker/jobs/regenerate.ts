import { and, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { collectionName } from "../../contracts/catalog";
import type { Job } from "../../contracts/job";
import type { RegenerateOutput, RegenerateOutputs, RegenerateRequest } from "../../contracts/regenerate";
import { languageKey } from "../../contracts/translation-languages";
import { catalogObject } from "../../durable-objects/catalog/address";
import type { Principal } from "../auth/principal";
import type { Db } from "../db/client";
import { dubbings, summarizations, translations } from "../db/schema";
import type { Env } from "../env";
import { ApiError, validationError } from "../errors";
import type { ServerTiming } from "../http/server-timing";
import { dubbingsWithRevision, dubMadeFrom } from "../services/dubbing/store";
import { metadataOf } from "../services/metadata/store";
import { summaryResultOf } from "../services/summarization/store";
import type { TranscriptRow } from "../transcripts/lookup";
import { outputKeysStaleness, staleness } from "../transcripts/staleness";
import { createJob } from "./create";

/**
 * `POST /v1/transcriptions/{id}/regenerate`: which outputs of a transcript to make again from its
 * current revision, each as the ordinary job that makes it (docs/api.md, "Stale outputs and
 * regenerate"). The jobs are created one by one through `createJob` with the caller's principal, so
 * each meets its own plan limits, credits and checks; one refused does not stop the others.
 */

/** One job to create, and the output (and which translation or dubbing) it brings up to date. */
export interface PlannedJob {
  output: RegenerateOutput;
  languageKey?: string;
  dubbingId?: string;
  /** The `POST /v1/jobs` body, checked by `createJob` like any other. */
  body: { serviceType: string; input: Record<string, unknown> };
}

type Selection = RegenerateOutputs[keyof RegenerateOutputs];

/** Whether an output selected as `sel` is regenerated, given whether it reads stale now. */
const wanted = (sel: Selection, stale: boolean | null) => sel === true || (sel === "stale" && stale === true);

/** `outputs: "stale"`: every output, each only when it reads stale. */
const EVERY_STALE = {
  files: "stale",
  translations: "stale",
  index: "stale",
  metadata: "stale",
  summary: "stale",
  dubbings: "stale",
} as const satisfies Required<RegenerateOutputs>;

/** The options a dubbing row was made with (defaults filled at create), as a new request sends them. */
const StoredDubOptions = z.object({
  diarization: z
    .object({
      enabled: z.boolean().optional(),
      minSpeakers: z.number().int().nullable().optional(),
      maxSpeakers: z.number().int().nullable().optional(),
    })
    .optional(),
  voiceAssignments: z.record(z.string(), z.string()).optional(),
  voiceCloning: z.object({ enabled: z.boolean() }).optional(),
  tts: z.object({ enabled: z.boolean(), modelId: z.string().nullable().optional() }).optional(),
});

function dubOptions(stored: unknown, dubbingId: string): Record<string, unknown> {
  const o = StoredDubOptions.safeParse(stored).data ?? {};
  const d = o.diarization;
  return {
    ...(d
      ? {
          diarization: {
            ...(d.enabled !== undefined ? { enabled: d.enabled } : {}),
            ...(d.minSpeakers != null ? { minSpeakers: d.minSpeakers } : {}),
            ...(d.maxSpeakers != null ? { maxSpeakers: d.maxSpeakers } : {}),
          },
        }
      : {}),
    ...(o.voiceAssignments && Object.keys(o.voiceAssignments).length > 0 ? { voiceAssignments: o.voiceAssignments } : {}),
    ...(o.voiceCloning ? { voiceCloning: o.voiceCloning } : {}),
    ...(o.tts ? { tts: { enabled: o.tts.enabled, ...(o.tts.modelId ? { modelId: o.tts.modelId } : {}) } } : {}),
    // The new dub keeps the audio of every segment whose text did not change (docs/api.md "Regenerating a dub").
    regenerateFrom: dubbingId,
  };
}

/** The jobs the request asks for, in the order of REGENERATE_OUTPUTS (contracts/regenerate.ts); 422 when it names an output the transcript does not have. */
export async function planRegeneration(env: Env, db: Db, t: TranscriptRow, req: RegenerateRequest): Promise<PlannedJob[]> {
  const outputs: RegenerateOutputs = req.outputs === "stale" ? EVERY_STALE : req.outputs;
  const plan: PlannedJob[] = [];
  const textSourceId = t.id;

  if (outputs.files !== undefined) {
    // Files written to presigned URLs cannot be rewritten: "stale" passes over them, `true` is answered by the create's refusal.
    const { outputKeysStale } = outputKeysStaleness(t);
    if (wanted(outputs.files, t.bucket ? outputKeysStale : false))
      plan.push({ output: "files", body: { serviceType: "transcript_files", input: { textSourceId } } });
  }

  if (outputs.translations !== undefined) plan.push(...(await translationJobs(db, t, outputs.translations)));

  if (outputs.index !== undefined) {
    const entry =
      outputs.index === "stale"
        ? (await catalogObject(env.CATALOG, collectionName(t.projectId)).entries()).find((e) => e.textSourceId === t.id)
        : undefined;
    if (wanted(outputs.index, staleness(entry?.transcriptRevision, t.revision).stale))
      plan.push({ output: "index", body: { serviceType: "indexer", input: { textSourceIds: [textSourceId] } } });
  }

  if (outputs.metadata !== undefined) {
    const record = outputs.metadata === "stale" ? await metadataOf(env, t) : null;
    const madeFrom = typeof record?.["transcriptRevision"] === "number" ? record["transcriptRevision"] : null;
    if (wanted(outputs.metadata, staleness(madeFrom, t.revision).stale))
      plan.push({ output: "metadata", body: { serviceType: "metadata", input: { textSourceId } } });
  }

  if (outputs.summary !== undefined) {
    const madeFrom = outputs.summary === "stale" ? await latestSummaryRevision(env, db, t.id) : null;
    if (wanted(outputs.summary, staleness(madeFrom, t.revision).stale))
      plan.push({ output: "summary", body: { serviceType: "summarization", input: { textSourceJobId: textSourceId } } });
  }

  if (outputs.dubbings !== undefined) plan.push(...(await dubbingJobs(db, t, outputs.dubbings)));

  if (plan.length === 0)
    throw validationError(
      `nothing to regenerate: every output asked for (${Object.keys(outputs).join(", ") || "none"}) is up to date with revision ${t.revision}, or none was asked for`,
      [{ path: "outputs", issue: "nothingToRegenerate" }],
    );
  return plan;
}

async function translationJobs(db: Db, t: TranscriptRow, sel: NonNullable<RegenerateOutputs["translations"]>): Promise<PlannedJob[]> {
  const index = t.translation as Record<string, { translationId?: unknown }>;
  const ids = Object.values(index).flatMap((e) => (typeof e.translationId === "string" ? [e.translationId] : []));
  const rows =
    ids.length === 0
      ? []
      : await db
          .select({
            id: translations.id,
            languageKey: translations.languageKey,
            targetLanguage: translations.targetLanguage,
            sourceLayer: translations.sourceLayer,
            transcriptRevision: translations.transcriptRevision,
          })
          .from(translations)
          .where(sql`${translations.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`)
          .all();
  const byKey = new Map(rows.map((r) => [r.languageKey, r]));
  const chosen =
    sel === "stale"
      ? rows.filter((r) => staleness(r.transcriptRevision, t.revision).stale === true)
      : sel.map((code, i) => {
          const row = byKey.get(languageKey(code));
          if (!row)
            throw validationError(`transcription ${t.id} has no translation into ${languageKey(code)} to regenerate`, [
              { path: `outputs.translations.${i}`, issue: `notTranslated:${languageKey(code)}` },
            ]);
          return row;
        });
  return [...new Map(chosen.map((r) => [r.languageKey, r])).values()]
    .sort((a, b) => a.languageKey.localeCompare(b.languageKey))
    .map((r) => ({
      output: "translations" as const,
      languageKey: r.languageKey,
      body: { serviceType: "translation", input: { textSourceId: t.id, targetLanguage: r.targetLanguage, sourceLayer: r.sourceLayer } },
    }));
}

async function latestSummaryRevision(env: Env, db: Db, textSourceId: string): Promise<number | null> {
  const row = await db
    .select()
    .from(summarizations)
    .where(and(eq(summarizations.textSourceId, textSourceId), eq(summarizations.status, "completed")))
    .orderBy(desc(summarizations.updatedAt))
    .get();
  const result = row ? await summaryResultOf(env, row) : null;
  return typeof result?.["transcriptRevision"] === "number" ? result["transcriptRevision"] : null;
}

async function dubbingJobs(db: Db, t: TranscriptRow, sel: NonNullable<RegenerateOutputs["dubbings"]>): Promise<PlannedJob[]> {
  const rows = await dubbingsWithRevision(db).where(eq(dubbings.transcriptionId, t.id)).orderBy(desc(dubbings.createdAt)).all();
  const byId = new Map(rows.map((r) => [r.id, r]));
  let chosen: typeof rows;
  if (sel === "stale") {
    // The newest completed dub of each language speaks for it; an older one is not brought back.
    const newest = new Map<string, (typeof rows)[number]>();
    for (const r of rows) if (r.status === "completed" && !newest.has(r.languageKey)) newest.set(r.languageKey, r);
    chosen = [...newest.values()].filter((r) => staleness(dubMadeFrom(r), t.revision).stale === true);
  } else {
    chosen = [...new Set(sel)].map((id, i) => {
      const row = byId.get(id);
      if (!row)
        throw validationError(`transcription ${t.id} has no dubbing ${id}`, [{ path: `outputs.dubbings.${i}`, issue: `notFound:${id}` }]);
      return row;
    });
  }
  return chosen.map((r) => ({
    output: "dubbings" as const,
    dubbingId: r.id,
    body: {
      serviceType: "dubbing",
      input: { transcriptionId: t.id, targetLanguage: r.targetLanguage, options: dubOptions(r.options, r.id) },
    },
  }));
}

/** What became of one planned job: the job made, or the error its create answered. */
export type Regenerated = (Omit<PlannedJob, "body"> & { job: Job }) | (Omit<PlannedJob, "body"> & { error: ApiError });

/**
 * Creates each planned job in order. A create refused (a plan limit, a check of its own) is reported
 * beside the others; a failure that is not an answer of the API (a bug, an outage) stops the loop.
 */
export async function createRegenerationJobs(
  env: Env,
  principal: Principal,
  plan: readonly PlannedJob[],
  timing?: ServerTiming,
): Promise<Regenerated[]> {
  const out: Regenerated[] = [];
  for (const { body, ...what } of plan) {
    try {
      out.push({ ...what, job: await createJob(env, principal, body, timing) });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      out.push({ ...what, error: err });
    }
  }
  return out;
}
