import { eq } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import { redactUrl } from "../../../contracts/presigned";
import type { InputOf, StoredInputOf } from "../../../contracts/services/index";
import { S3Client } from "../../../contracts/s3-client";
import { transcripts } from "../../db/schema";
import { validationError } from "../../errors";
import { VOCABULARY_MAX_TERMS, VOCABULARY_TERM_MAX_CHARS } from "../../../contracts/request-fields";
import { LANGUAGE_DETECTING_ENGINES } from "../../../contracts/settings";
import { projectGlossary } from "../../transcripts/store";
import { projectDataPolicy } from "../../accounts/data-policy";
import type { DataPolicy } from "../../../contracts/data-policy";
import { PII_ENTITY_TYPES, type RedactionOptions } from "../../../contracts/redaction";
import type { StoredRedaction } from "../../../contracts/services/transcription";
import { displayNameOf, extensionOf } from "../../storage/object-keys";
import { requireUsableConnection } from "../../storage/connections";
import { connectionLocation } from "../../storage/connections";
import { putProbes } from "../shared/output-probes";
import { probeBucketSource } from "../shared/source-probe";
import { resolvePresigned, withRecord } from "../shared/presigned-input";
import type { CreateContext, Resolved } from "../types";

export const TRANSCRIPT_FILES = {
  fullText: "transcript.txt",
  segments: "segments.json",
  srt: "transcript.srt",
  vtt: "transcript.vtt",
} as const;

type TranscriptionInput = InputOf<"transcription">;
type ResolvedTranscription = Resolved<StoredInputOf<"transcription">>;

function checkExtension(ctx: CreateContext, name: string, path: string, field: string): void {
  const allowed = [...ctx.settings.transcription.allowedExtensions, ...(ctx.extraSourceExtensions ?? [])];
  const ext = extensionOf(name);
  if (!allowed.includes(ext)) {
    throw validationError(`${field} must have a supported video extension (${allowed.join(", ")}); got ${ext ? "." + ext : "none"}`, [
      { path, issue: "unsupportedExtension" },
    ]);
  }
}

/**
 * The job's languages: each a platform-supported source language; two or more only where the speech
 * engine detects languages (it chooses among them), since PocketSphinx knows one and cannot.
 */
function checkLanguage(ctx: CreateContext, input: TranscriptionInput): { language?: string; languages?: string[] } {
  const asked = input.options?.language;
  if (asked === undefined) return {};
  const list = typeof asked === "string" ? [asked] : [...new Set(asked)];
  const supported = ctx.settings.transcription.supportedSourceLanguages;
  list.forEach((language, i) => {
    if (!supported.includes(language.split("-")[0] ?? language))
      throw validationError(`language ${language} is not a supported source language (${supported.join(", ")})`, [
        { path: typeof asked === "string" ? "input.options.language" : `input.options.language.${i}`, issue: "unsupportedLanguage" },
      ]);
  });
  if (list.length === 1) return { language: list[0]! };
  const engine = ctx.settings.transcription.speechEngine;
  if (!LANGUAGE_DETECTING_ENGINES.includes(engine))
    throw validationError(
      `the speech engine ${engine} recognises one language and cannot choose among ${list.length}; send one language, or none`,
      [{ path: "input.options.language", issue: "languageListUnsupported" }],
    );
  return { languages: list };
}

const preprocessingOf = (ctx: CreateContext) => ({
  extract: true,
  denoise: ctx.settings.transcription.denoise,
  separateVocals: ctx.settings.transcription.separateVocals,
});

type StoredOptions = ResolvedTranscription["input"]["options"];

/**
 * Diarization on unless the job turns it off or the platform has no diarization engine; a job that
 * asks for it then is refused rather than silently answered without speakers.
 */
function diarizationOf(ctx: CreateContext, input: TranscriptionInput): NonNullable<StoredOptions["diarization"]> {
  const asked = input.options?.diarization;
  const available = ctx.settings.transcription.diarizationEngine !== "none";
  if (asked?.enabled === true && !available)
    throw validationError("this platform has no diarization engine configured (settings transcription.diarizationEngine is none)", [
      { path: "input.options.diarization.enabled", issue: "diarizationUnavailable" },
    ]);
  return {
    enabled: available && asked?.enabled !== false,
    minSpeakers: asked?.minSpeakers ?? null,
    maxSpeakers: asked?.maxSpeakers ?? null,
  };
}

/**
 * Whether the transcript is redacted, and of what: the project's policy decides first (`required`:
 * always, every type; `off`: never, and a job asking is refused), else the job's `options.redaction`.
 */
export function redactionOf(policy: DataPolicy, asked: RedactionOptions | undefined): StoredRedaction | null {
  const wanted = asked !== undefined && asked.enabled !== false;
  if (policy.redaction === "off" && wanted)
    throw validationError("this project's data policy turns redaction off (dataPolicy.redaction is off)", [
      { path: "input.options.redaction", issue: "redactionOff" },
    ]);
  if (policy.redaction === "required") return { entities: [...PII_ENTITY_TYPES], reason: "policy", keepUnredacted: policy.keepUnredacted };
  if (!wanted) return null;
  return {
    entities: asked.entities ? [...new Set(asked.entities)] : [...PII_ENTITY_TYPES],
    reason: "job",
    keepUnredacted: policy.keepUnredacted,
  };
}

/**
 * What the recogniser is told to expect: the job's terms, then the project glossary's preferred
 * spellings, each once (case-insensitively), at most VOCABULARY_MAX_TERMS in all.
 */
export function vocabularyOf(jobTerms: readonly string[], glossaryPreferred: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const term of [...jobTerms, ...glossaryPreferred]) {
    const t = term.trim();
    const key = t.toLowerCase();
    if (t === "" || t.length > VOCABULARY_TERM_MAX_CHARS || seen.has(key)) continue;
    seen.add(key);
    out.push(t);
    if (out.length === VOCABULARY_MAX_TERMS) break;
  }
  return out;
}

/**
 * The options the job stores, checked in the documented order after the source's own checks; the
 * glossary (read in parallel with those) supplies the vocabulary's preferred spellings.
 */
async function storedOptions(
  ctx: CreateContext,
  input: TranscriptionInput,
  glossaryRead: ReturnType<typeof projectGlossary>,
): Promise<StoredOptions> {
  const { vocabulary = [], subtitleSpeakers } = input.options ?? {};
  const languages = checkLanguage(ctx, input);
  const redaction = redactionOf(await projectDataPolicy(ctx.db, ctx.projectId), input.options?.redaction);
  const glossary = await glossaryRead;
  const terms = vocabularyOf(
    vocabulary,
    glossary.map((g) => g.preferred),
  );
  return {
    ...languages,
    preprocessing: preprocessingOf(ctx),
    diarization: diarizationOf(ctx, input),
    ...(terms.length > 0 ? { vocabulary: terms } : {}),
    ...(subtitleSpeakers !== undefined ? { subtitleSpeakers } : {}),
    ...(redaction ? { redaction } : {}),
  };
}

/**
 * A transcription's create: the connection and bucket (or, for `s3_presigned`, the URLs' own checks),
 * the extension and language hint, then (after the quota check) a ranged GET of the source and an
 * empty PUT at each of the four outputs.
 */
export async function resolveTranscription(ctx: CreateContext, input: TranscriptionInput): Promise<ResolvedTranscription> {
  return input.sourceType === "s3_presigned" ? resolvePresignedTranscription(ctx, input) : resolveBucket(ctx, input);
}

async function resolveBucket(
  ctx: CreateContext,
  input: Extract<TranscriptionInput, { sourceType: "s3_direct" }>,
): Promise<ResolvedTranscription> {
  const { db, projectId } = ctx;
  const glossaryRead = projectGlossary(db, projectId);
  // Settled here too: a refused connection must not leave the glossary read's rejection unhandled.
  glossaryRead.catch(() => undefined);
  const conn = await requireUsableConnection(db, projectId, input.connectionId, input.bucket);
  checkExtension(ctx, input.sourceKey, "input.sourceKey", "sourceKey");
  const options = await storedOptions(ctx, input, glossaryRead);

  const textSourceId = newId("transcript");
  const prefix = input.outputPrefix
    ? input.outputPrefix.replace(/\/?$/, "/")
    : `${conn.defaultOutputPrefix.replace(/\/$/, "")}/${textSourceId}/transcripts/`;
  const outputKeys = {
    fullText: prefix + TRANSCRIPT_FILES.fullText,
    segments: prefix + TRANSCRIPT_FILES.segments,
    srt: prefix + TRANSCRIPT_FILES.srt,
    vtt: prefix + TRANSCRIPT_FILES.vtt,
  };

  const probe = async () => {
    const s3 = new S3Client(await connectionLocation(conn, ctx.env.ENCRYPTION_KEY), 10_000);
    await probeBucketSource(s3, {
      bucket: input.bucket,
      key: input.sourceKey,
      path: "input.sourceKey",
      noun: "source object",
      runner: ctx.settings.runner,
    });
    await putProbes(s3, input.bucket, Object.values(outputKeys), input.outputPrefix ? "input.outputPrefix" : "input.bucket");
  };

  return {
    input: {
      ...input,
      textSourceId,
      resolvedOutputPrefix: prefix,
      resolvedOutputKeys: outputKeys,
      options,
    },
    sourceDisplayName: displayNameOf(input.sourceKey),
    credits: 1,
    probe,
    record: pendingTranscript(db, projectId, textSourceId, {
      connectionId: conn.id,
      bucket: input.bucket,
      sourceKey: input.sourceKey,
      outputKeys,
    }),
  };
}

/**
 * `s3_presigned`: the URLs' scheme, hosts and expiry here (no connection), the ranged GET and empty
 * PUTs as the probe (shared/presigned-input.ts). The job stores the URLs redacted; the full ones are
 * sealed in `job_secrets` with the job, for the runner's lease. The transcript record has no bucket location.
 */
async function resolvePresignedTranscription(
  ctx: CreateContext,
  input: Extract<TranscriptionInput, { sourceType: "s3_presigned" }>,
): Promise<ResolvedTranscription> {
  const { db, projectId } = ctx;
  const presigned = resolvePresigned(ctx, input);
  const sourcePath = presigned.sourcePath ?? "";
  checkExtension(ctx, sourcePath, "input.sourceUrl", "sourceUrl's path");
  const options = await storedOptions(ctx, input, projectGlossary(db, projectId));

  const textSourceId = newId("transcript");
  // Redacted as resolvePresigned redacts them, file by file, so the stored URLs keep their names.
  const { fullText, segments, srt, vtt } = input.outputUrls;
  const redactedOutputs = { fullText: redactUrl(fullText), segments: redactUrl(segments), srt: redactUrl(srt), vtt: redactUrl(vtt) };
  return {
    input: {
      ...input,
      sourceUrl: redactUrl(input.sourceUrl),
      outputUrls: redactedOutputs,
      textSourceId,
      options,
    },
    sourceDisplayName: displayNameOf(sourcePath),
    credits: 1,
    probe: presigned.probe,
    record: withRecord(presigned, pendingTranscript(db, projectId, textSourceId, { outputKeys: redactedOutputs })),
  };
}

/** The transcript's row, pending from the job's create (removed again if the create does not go through). */
function pendingTranscript(
  db: CreateContext["db"],
  projectId: string,
  textSourceId: string,
  location: Pick<typeof transcripts.$inferInsert, "connectionId" | "bucket" | "sourceKey" | "outputKeys">,
): NonNullable<Resolved["record"]> {
  return {
    statements: async (jobId, now) => [
      db.insert(transcripts).values({ id: textSourceId, projectId, jobId, status: "pending", ...location, createdAt: now, updatedAt: now }),
    ],
    remove: async () => {
      await db.delete(transcripts).where(eq(transcripts.id, textSourceId));
    },
  };
}
