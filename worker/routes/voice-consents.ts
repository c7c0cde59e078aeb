import { Hono } from "hono";
import { nowIso } from "../../contracts/clock";
import { newId } from "../../contracts/ids";
import { ConsentRequestSchema, isSpeakerSubject, subjectKey } from "../../contracts/voice-consent";
import { actorOf, type Principal } from "../auth/principal";
import { principalOf, projectOf } from "../auth/middleware";
import { getDb, type Db } from "../db/client";
import { voiceConsents } from "../db/schema";
import type { AppBindings } from "../env";
import { notFound } from "../errors";
import { ok } from "../http/envelope";
import { parseWith, readJson } from "../http/validate";
import { createJob } from "../jobs/create";
import { requireUsableConnection } from "../storage/connections";
import { findTranscript } from "../transcripts/lookup";
import { projectConsent, publicConsent, storedVoiceConsent } from "../services/voice-consent/store";

/**
 * `POST /v1/voice-consents`: an attestation, stored `granted` at once (201), or a recording, checked
 * by a `voice_consent` job (202, the consent `pending`). It lives with the platform routes, beside
 * `POST /v1/voices`, because a recording goes through the orchestrator (`createJob`).
 */
export const voiceConsentCreateRoutes = new Hono<AppBindings>().post("/", async (c) => {
  const p = principalOf(c);
  const { value } = await readJson(c);
  const req = parseWith(ConsentRequestSchema, value);
  const db = getDb(c.env.DB);
  if (req.kind === "recording") {
    const job = await createJob(c.env, p, { serviceType: "voice_consent", input: req }, c.get("timing"));
    const row = await projectConsent(db, projectOf(p), storedVoiceConsent(job).consentId);
    return ok(c, { ...(row ? publicConsent(row) : {}), job }, {}, 202);
  }
  await requireSubject(db, projectOf(p), req.subject);
  const id = newId("voiceConsent");
  const now = nowIso();
  await db.insert(voiceConsents).values({
    id,
    projectId: projectOf(p),
    kind: "attestation",
    status: "granted",
    subject: req.subject,
    subjectKey: subjectKey(req.subject),
    statement: req.statement,
    createdBy: createdBy(p),
    phraseId: null,
    recording: null,
    jobId: null,
    check: null,
    reason: null,
    createdAt: now,
    updatedAt: now,
    revokedAt: null,
  });
  const row = await projectConsent(db, projectOf(p), id);
  return ok(c, row ? publicConsent(row) : { consentId: id }, {}, 201);
});

function createdBy(p: Principal) {
  const a = actorOf(p);
  return { kind: a.kind, id: a.userId ?? p.keyId, label: a.label };
}

/** An attestation names something of this project: its transcript, or a usable connection and bucket. */
async function requireSubject(db: Db, projectId: string, subject: Parameters<typeof subjectKey>[0]) {
  if (!isSpeakerSubject(subject)) {
    await requireUsableConnection(db, projectId, subject.connectionId, subject.bucket, "subject");
    return;
  }
  const t = await findTranscript(db, projectId, subject.transcriptionId);
  if (!t)
    throw notFound(`transcription not found: ${subject.transcriptionId}`, [
      { path: "subject.transcriptionId", issue: `notFound:${subject.transcriptionId}` },
    ]);
}
