import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Job } from "../../../contracts/job";
import { VoiceCreationStoredSchema, type VoiceCreationStored } from "../../../contracts/services/voice-creation";
import type { CreatedVoice } from "../../../contracts/voices";
import type { Db } from "../../db/client";
import { voices } from "../../db/schema";
import { ApiError } from "../../errors";
import { nowIso } from "../../../contracts/clock";

/** Voice rows: written pending at create (API) or whole by a dubbing; completed once, idempotently. */

export type VoiceRow = typeof voices.$inferSelect;

/** A voice_creation job's input as create stored it (the contract's stored schema). */
export function storedVoiceCreation(job: Job): VoiceCreationStored {
  const parsed = VoiceCreationStoredSchema.safeParse(job.input);
  if (!parsed.success)
    throw new ApiError("protocolError", `job ${job.jobId} has no voice_creation input: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function publicVoice(v: VoiceRow) {
  return {
    voiceId: v.id,
    name: v.name,
    status: v.status,
    origin: v.origin,
    jobId: v.jobId,
    speakerLabel: v.speakerLabel,
    language: v.language,
    kind: v.kind,
    engine: v.engine,
    model: v.model,
    sample: v.sample,
    sampleSpeechSec: v.sampleSpeechSec,
    referenceKey: v.referenceKey,
    spec: v.spec,
    reason: v.reason,
    consent: v.consent,
    createdAt: v.createdAt,
    updatedAt: v.updatedAt,
  };
}

export function readyFields(created: CreatedVoice) {
  return {
    status: "ready" as const,
    kind: created.spec.kind,
    engine: created.spec.engine,
    model: created.model,
    spec: created.spec,
    referenceKey: created.referenceKey,
    sampleSpeechSec: created.sampleSpeechSec,
    reason: created.reason ?? null,
    consent: created.consent ?? null,
    updatedAt: nowIso(),
  };
}

export async function completeVoice(db: Db, voiceId: string, created: CreatedVoice): Promise<void> {
  await db
    .update(voices)
    .set(readyFields(created))
    .where(and(eq(voices.id, voiceId), eq(voices.status, "pending")));
}

export async function failPendingVoice(db: Db, voiceId: string): Promise<void> {
  await db
    .update(voices)
    .set({ status: "failed", updatedAt: nowIso() })
    .where(and(eq(voices.id, voiceId), eq(voices.status, "pending")));
}

export async function projectVoice(db: Db, projectId: string, voiceId: string): Promise<VoiceRow | undefined> {
  return db
    .select()
    .from(voices)
    .where(and(eq(voices.id, voiceId), eq(voices.projectId, projectId)))
    .get();
}
