import { and, eq } from "drizzle-orm";
import type { Job } from "../../../contracts/job";
import { baseLanguage } from "../../../contracts/translation-languages";
import { DubbingSaveSchema, type DubbingSave, type PreviousDubbing } from "../../../contracts/services/dubbing";
import type { Db } from "../../db/client";
import { dubbings } from "../../db/schema";
import type { Env } from "../../env";
import { notFound, validationError } from "../../errors";
import { projectVoice } from "../voice-creation/store";
import { dubbingResultOf } from "./store";

/**
 * `options.regenerateFrom` (docs/api.md, "Regenerating a dub"): the create checks on the previous dub
 * and what the job keeps of it (its artifacts' keys, its speakers' voices), and `dubbing.previous`,
 * its saved record for the runner.
 */

const PATH = "input.options.regenerateFrom";

/**
 * The previous dub, checked: this project's (else 404, as every id a create names), completed, of
 * the same transcript and target language, and a bucket dub whose record names its artifacts (else
 * 422 saying which). Its speakers' voices still ready in the project, speaking the target language,
 * are carried so the runner speaks with the same voice ids; a voice deleted since is left out, and
 * that speaker gets a voice as any dub's would.
 */
export async function resolvePreviousDubbing(
  env: Env,
  db: Db,
  projectId: string,
  id: string,
  expect: { transcriptionId: string; languageKey: string; bucketJob: boolean },
): Promise<PreviousDubbing> {
  const row = await db
    .select()
    .from(dubbings)
    .where(and(eq(dubbings.id, id), eq(dubbings.projectId, projectId)))
    .get();
  if (!row) throw notFound(`dubbing not found: ${id}`, [{ path: PATH, issue: `notFound:${id}` }]);
  const refuse = (message: string, issue: string) => validationError(`options.regenerateFrom: ${message}`, [{ path: PATH, issue }]);
  if (!expect.bucketJob)
    throw refuse("an s3_presigned dubbing cannot regenerate: it has no bucket to read the previous dub from", "regenerateNeedsBucket");
  if (row.status !== "completed") throw refuse(`dubbing ${id} is ${row.status}, not completed`, "dubbingNotCompleted");
  if (row.transcriptionId !== expect.transcriptionId)
    throw refuse(`dubbing ${id} is of transcription ${row.transcriptionId}, not ${expect.transcriptionId}`, "dubbingOfOtherTranscript");
  if (row.languageKey !== expect.languageKey)
    throw refuse(`dubbing ${id} is into ${row.languageKey}, not ${expect.languageKey}`, "dubbingLanguageMismatch");
  if (row.outputPrefix === "") throw refuse(`dubbing ${id} wrote to presigned URLs: there is nothing to read back`, "dubbingPresigned");
  const record = await previousRecord(env, row);
  const a = record?.artifacts;
  if (!record || !a?.rawAudio || !a.vocals || !a.background || !a.speech)
    throw refuse(`dubbing ${id} has no saved record of its artifacts`, "dubbingWithoutArtifacts");

  const voices: PreviousDubbing["voices"] = {};
  for (const s of record.speakers) {
    if (s.voiceId === null) continue;
    const v = await projectVoice(db, projectId, s.voiceId);
    if (!v || v.status !== "ready" || !v.spec || baseLanguage(v.language) !== baseLanguage(expect.languageKey)) continue;
    voices[s.label] = { voiceId: v.id, spec: v.spec, referenceKey: v.referenceKey, voiceSource: s.voiceSource };
  }
  return {
    dubbingId: row.id,
    artifacts: { rawAudio: a.rawAudio, vocals: a.vocals, background: a.background, speech: a.speech },
    voices,
  };
}

async function previousRecord(env: Env, row: typeof dubbings.$inferSelect): Promise<DubbingSave | null> {
  const body = await dubbingResultOf(env, row);
  const parsed = DubbingSaveSchema.safeParse(body);
  return parsed.success ? parsed.data : null;
}

/** `dubbing.previous`: the previous dub's record as saved; null when it was deleted since create (the runner then dubs in full). */
export async function previousDubbingRecord(
  env: Env,
  db: Db,
  job: Job,
  previousId: string | undefined,
): Promise<{ record: DubbingSave | null }> {
  if (!previousId) return { record: null };
  const row = await db
    .select()
    .from(dubbings)
    .where(and(eq(dubbings.id, previousId), eq(dubbings.projectId, job.projectId)))
    .get();
  return { record: row && row.status === "completed" ? await previousRecord(env, row) : null };
}
