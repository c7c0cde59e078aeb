import { z } from "zod";
import { Id, ObjectKeySchema } from "./request-fields";

/**
 * Consent to clone a speaker's voice (issue 25; docs/api.md "Consent for cloned voices"). Under a
 * project's `dataPolicy.voiceCloning.requireConsent`, a dubbing clones a speaker's voice, and
 * `POST /v1/voices` clones a sample's, only with a `granted` consent record (`vcn_`) for that
 * subject; everyone else gets a voice profile (a stock voice matched in pitch and rate), never a clone.
 *
 * A record is one of two kinds:
 * - `attestation`: someone states that the speaker agreed; kept with who said it, when, and the text.
 * - `recording`: the speaker reads a phrase the service issued (`vcp_`, single use, 24 h); a
 *   `voice_consent` job checks, on the runner, that the speech engine hears the phrase's words and that
 *   the diarizer's features find the subject's voice in it.
 */

/** A speaker of a transcript, by its diarization label; or a sample object a voice would be made from. */
export const SpeakerSubjectSchema = z.strictObject({
  transcriptionId: Id("txt_"),
  speakerLabel: z.string().regex(/^SPEAKER_\d{2}$/, { message: "must be a diarization label like SPEAKER_00" }),
});
export const SampleSubjectSchema = z.strictObject({
  connectionId: z.string().min(1).max(128),
  bucket: z.string().min(1).max(255),
  key: ObjectKeySchema,
});
export const ConsentSubjectSchema = z.union([SpeakerSubjectSchema, SampleSubjectSchema], {
  message: "subject must be { transcriptionId, speakerLabel } or { connectionId, bucket, key }",
});
export type SpeakerSubject = z.infer<typeof SpeakerSubjectSchema>;
export type SampleSubject = z.infer<typeof SampleSubjectSchema>;
export type ConsentSubject = z.infer<typeof ConsentSubjectSchema>;

export const isSpeakerSubject = (s: ConsentSubject): s is SpeakerSubject => "transcriptionId" in s;

/** One string naming a subject, unique per project: what the table indexes and a lookup matches. */
export function subjectKey(s: ConsentSubject): string {
  return isSpeakerSubject(s) ? `speaker:${s.transcriptionId}:${s.speakerLabel}` : `sample:${s.connectionId}:${s.bucket}:${s.key}`;
}

export const MAX_STATEMENT_CHARS = 2000;

export const AttestationConsentRequestSchema = z.strictObject({
  kind: z.literal("attestation"),
  subject: ConsentSubjectSchema,
  /** What the person attesting states, e.g. "Ana Ruiz agreed in writing on 3 May to her voice being cloned for the Spanish dub". */
  statement: z.string().trim().min(10).max(MAX_STATEMENT_CHARS),
});

export const RecordingConsentRequestSchema = z.strictObject({
  kind: z.literal("recording"),
  subject: ConsentSubjectSchema,
  phraseId: Id("vcp_"),
  /** The speaker reading the phrase: in the same connection and bucket as the subject's media. */
  recording: SampleSubjectSchema,
});

export const ConsentRequestSchema = z.discriminatedUnion("kind", [AttestationConsentRequestSchema, RecordingConsentRequestSchema], {
  message: "kind must be attestation or recording",
});
export type ConsentRequest = z.infer<typeof ConsentRequestSchema>;

export const PhraseRequestSchema = z.strictObject({
  /** The speaker's name as they will say it; it opens the phrase. */
  speakerName: z.string().trim().min(1).max(80).optional(),
});

export const CONSENT_STATUSES = ["pending", "granted", "refused", "revoked"] as const;
export type ConsentStatus = (typeof CONSENT_STATUSES)[number];
export const CONSENT_KINDS = ["attestation", "recording"] as const;
export type ConsentKind = (typeof CONSENT_KINDS)[number];

/** How long an issued phrase may be used. */
export const PHRASE_TTL_MS = 24 * 60 * 60 * 1000;
/** Challenge words per phrase: 41^6 ≈ 4.8·10⁹ phrases. */
export const PHRASE_WORD_COUNT = 6;

/**
 * The words a phrase draws from: common English words the local recogniser (PocketSphinx en-us)
 * hears reliably in synthetic speech, screened on this machine (each spoken by two eSpeak NG voices
 * in a list of eight, and kept when heard by both). English only: a recording check needs a speech
 * engine that recognises English.
 */
export const PHRASE_WORDS = [
  "apple",
  "river",
  "seven",
  "garden",
  "yellow",
  "bread",
  "table",
  "music",
  "ocean",
  "rabbit",
  "pencil",
  "guitar",
  "rocket",
  "cherry",
  "banana",
  "tomato",
  "potato",
  "carrot",
  "eagle",
  "falcon",
  "zebra",
  "camel",
  "friday",
  "november",
  "december",
  "january",
  "copper",
  "marble",
  "velvet",
  "crystal",
  "shadow",
  "kettle",
  "ladder",
  "bottle",
  "meadow",
  "castle",
  "market",
  "station",
  "airport",
  "stadium",
  "ticket",
] as const;

/** The phrase a speaker reads: their name (when given), a fixed sentence, the challenge words. */
export function phraseText(words: readonly string[], speakerName: string | null): string {
  const who = speakerName ? `My name is ${speakerName}. ` : "";
  return `${who}I agree to a synthetic copy of my voice. ${words.join(", ")}.`;
}

/**
 * The recording's words must include at least this share of the phrase's challenge words (each
 * counted once, after lower-casing and dropping punctuation): the fixed sentence and the name prove
 * nothing a replayed recording could not, the random words do.
 */
export const MIN_WORD_RECALL = 0.7;
/**
 * The recording's voice and the subject's (compareVoices in gpu-runner/engines/diarization/voice-match.ts)
 * must be at most this far apart. Measured by bench/voice-consent.ts on nine synthetic voices: the
 * same voice 0.24–0.85 apart (up to 1.14 with a shorter phrase), and 66 of 72 different-voice pairs
 * beyond 1.2; the six within are eSpeak NG variants of one base voice or one voice with its pitch
 * raised (docs/api.md, "Consent for cloned voices").
 */
export const MAX_VOICE_DISTANCE = 1.2;

/** Share of the challenge words heard in the recording (each once), and which. */
export function wordRecall(challenge: readonly string[], heard: string): { recall: number; missing: string[] } {
  const got = new Set(normalisedWords(heard));
  const missing = challenge.filter((w) => !got.has(w.toLowerCase()));
  return { recall: challenge.length === 0 ? 0 : (challenge.length - missing.length) / challenge.length, missing };
}

/** Lower-case words of letters and digits: punctuation, case and alternate-pronunciation marks dropped. */
export const normalisedWords = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/** A consent as a dubbing's stored input carries it for one speaker label (granted at create). */
export const GrantedConsentSchema = z.object({ consentId: z.string(), kind: z.enum(CONSENT_KINDS) });
export type GrantedConsent = z.infer<typeof GrantedConsentSchema>;

/** What a job stores of the policy at create: whether consent is required, and the consents found. */
export const StoredConsentsSchema = z.object({
  required: z.boolean(),
  /** By speaker label (dubbing); a voice_creation job uses the key `sample`. */
  granted: z.record(z.string(), GrantedConsentSchema),
});
export type StoredConsents = z.infer<typeof StoredConsentsSchema>;
export const NO_CONSENT_REQUIRED: StoredConsents = { required: false, granted: {} };

/** The reason a speaker gets a profile, not a clone, on the dubbing record and the voice. */
export const noConsentReason = (who: string) => `no consent for ${who} (voiceCloning.requireConsent): a voice profile, not a clone`;
