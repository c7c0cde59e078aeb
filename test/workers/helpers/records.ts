import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { collectionName } from "../../../contracts/catalog";
import { newId } from "../../../contracts/ids";
import { getDb } from "../../../worker/db/client";
import { clipGenerations, dubbings, summarizations, transcripts, translations, voiceConsents, voices } from "../../../worker/db/schema";

/**
 * One record of every kind a service route names, written straight to D1 (the catalog entry to the
 * project's catalog object) for a project's transcript:
 * the routes only read them, so a security test needs the rows, not the jobs that would make them.
 */
export interface ServiceRecords {
  clipGenerationId: string;
  summarizationId: string;
  translationId: string;
  languageKey: string;
  dubbingId: string;
  voiceId: string;
  consentId: string;
}

export async function seedServiceRecords(projectId: string, transcriptionId: string, jobId: string): Promise<ServiceRecords> {
  const db = getDb(env.DB);
  const now = new Date().toISOString();
  const ids: ServiceRecords = {
    clipGenerationId: newId("clipGeneration"),
    summarizationId: newId("summarization"),
    translationId: newId("translation"),
    languageKey: "es",
    dubbingId: newId("dubbing"),
    voiceId: newId("voice"),
    consentId: newId("voiceConsent"),
  };
  const base = { projectId, jobId, createdAt: now, updatedAt: now };
  await db.batch([
    db
      .insert(clipGenerations)
      .values({ ...base, id: ids.clipGenerationId, textSourceId: transcriptionId, status: "pending", options: {}, outputPrefix: "out/" }),
    db.insert(summarizations).values({ ...base, id: ids.summarizationId, textSourceId: transcriptionId, status: "pending", config: {} }),
    db.insert(translations).values({
      ...base,
      id: ids.translationId,
      textSourceId: transcriptionId,
      status: "completed",
      sourceLanguage: "en",
      targetLanguage: "es",
      languageKey: ids.languageKey,
      sourceLayer: "current",
      translationBackend: "test",
      model: "test",
      outputKeys: { srt: "out/es.srt", vtt: "out/es.vtt" },
      completedAt: now,
    }),
    db.insert(dubbings).values({
      ...base,
      id: ids.dubbingId,
      transcriptionId,
      translationId: ids.translationId,
      status: "pending",
      sourceLanguage: "en",
      targetLanguage: "es",
      languageKey: ids.languageKey,
      options: {},
      outputPrefix: "out/",
    }),
    db.insert(voices).values({ ...base, id: ids.voiceId, name: "v", status: "pending", origin: "api", language: "en", sample: {} }),
    db.insert(voiceConsents).values({
      id: ids.consentId,
      projectId,
      kind: "attestation",
      status: "granted",
      subject: { transcriptionId, speakerLabel: "SPEAKER_00" },
      subjectKey: `speaker:${transcriptionId}:SPEAKER_00`,
      statement: "Ana agreed in writing.",
      createdBy: { kind: "api_key", id: "pak_test", label: "test" },
      createdAt: now,
      updatedAt: now,
    }),
    db
      .update(transcripts)
      .set({
        metadata: { metadataId: newId("metadata"), title: "t" },
        translation: { [ids.languageKey]: { translationId: ids.translationId } },
      })
      .where(eq(transcripts.id, transcriptionId)),
  ]);
  // The catalog entry lives in the project's catalog object: an empty generation, cut over.
  await env.CATALOG.get(env.CATALOG.idFromName(collectionName(projectId))).cutover(transcriptionId, `${jobId}.0`, {
    jobId,
    chunkCount: 0,
    segmentCount: 0,
    transcriptRevision: 1,
    language: null,
    denseEngine: "test",
    denseModel: "test",
    dimensions: 1,
    sparseEngine: "test",
    indexedAt: now,
  });
  return ids;
}
