import { and, desc, eq, inArray } from "drizzle-orm";
import { z } from "zod";
import { nowIso } from "../../../contracts/clock";
import type { Job } from "../../../contracts/job";
import { VoiceConsentStoredSchema, type VoiceConsentResult, type VoiceConsentStored } from "../../../contracts/services/voice-consent";
import { subjectKey, type ConsentSubject, type GrantedConsent, type StoredConsents } from "../../../contracts/voice-consent";
import { projectDataPolicy } from "../../accounts/data-policy";
import type { Db } from "../../db/client";
import { voiceConsents } from "../../db/schema";
import { ApiError } from "../../errors";

/** Consent rows: written at create (granted, or pending with its check's job), decided once, revoked by DELETE. */

export type ConsentRow = typeof voiceConsents.$inferSelect;

export function storedVoiceConsent(job: Job): VoiceConsentStored {
  const parsed = VoiceConsentStoredSchema.safeParse(job.input);
  if (!parsed.success) throw new ApiError("protocolError", `job ${job.jobId} has no voice_consent input: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

export function publicConsent(r: ConsentRow) {
  return {
    consentId: r.id,
    kind: r.kind,
    status: r.status,
    subject: r.subject,
    statement: r.statement,
    createdBy: r.createdBy,
    phraseId: r.phraseId,
    recording: r.recording,
    jobId: r.jobId,
    check: r.check,
    reason: r.reason,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    revokedAt: r.revokedAt,
  };
}

export async function projectConsent(db: Db, projectId: string, id: string): Promise<ConsentRow | undefined> {
  return db
    .select()
    .from(voiceConsents)
    .where(and(eq(voiceConsents.id, id), eq(voiceConsents.projectId, projectId)))
    .get();
}

/** The newest granted consent of each subject that has one (revoked, refused and pending ones never count). */
export async function grantedConsents(
  db: Db,
  projectId: string,
  subjects: readonly ConsentSubject[],
): Promise<Map<string, GrantedConsent>> {
  const keys = [...new Set(subjects.map(subjectKey))];
  if (keys.length === 0) return new Map();
  const rows = await db
    .select({ id: voiceConsents.id, kind: voiceConsents.kind, subjectKey: voiceConsents.subjectKey })
    .from(voiceConsents)
    .where(and(eq(voiceConsents.projectId, projectId), inArray(voiceConsents.subjectKey, keys), eq(voiceConsents.status, "granted")))
    .orderBy(desc(voiceConsents.createdAt))
    .all();
  const out = new Map<string, GrantedConsent>();
  for (const r of rows) if (!out.has(r.subjectKey)) out.set(r.subjectKey, { consentId: r.id, kind: r.kind });
  return out;
}

/**
 * What a job that may clone stores of its project's policy at create: whether consent is required
 * and, when it is, the granted consents of its subjects by name (a speaker label, or `sample`).
 * Decided here, by the Worker: the runner only reads it.
 */
export async function consentsForJob(
  db: Db,
  projectId: string,
  subjects: Readonly<Record<string, ConsentSubject>>,
): Promise<StoredConsents> {
  const policy = await projectDataPolicy(db, projectId);
  if (!policy.voiceCloning.requireConsent) return { required: false, granted: {} };
  const found = await grantedConsents(db, projectId, Object.values(subjects));
  const granted: Record<string, GrantedConsent> = {};
  for (const [name, subject] of Object.entries(subjects)) {
    const c = found.get(subjectKey(subject));
    if (c) granted[name] = c;
  }
  return { required: true, granted };
}

/** The check's decision, once: a consent revoked meanwhile stays revoked. */
export async function decideConsent(db: Db, consentId: string, r: VoiceConsentResult): Promise<void> {
  await db
    .update(voiceConsents)
    .set({ status: r.decision, check: r.check, reason: r.reason, updatedAt: nowIso() })
    .where(and(eq(voiceConsents.id, consentId), eq(voiceConsents.status, "pending")));
}

/** A check that could not run (its job failed or was cancelled) refuses: nothing was shown. */
export async function refusePendingConsent(db: Db, consentId: string, reason: string): Promise<void> {
  await db
    .update(voiceConsents)
    .set({ status: "refused", reason, updatedAt: nowIso() })
    .where(and(eq(voiceConsents.id, consentId), eq(voiceConsents.status, "pending")));
}
