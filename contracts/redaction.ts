import { z } from "zod";

/**
 * Personal data found in a transcript and replaced by its type (issue 25). A redacted transcript
 * keeps where each entity was (segment, words, time span) and its type, never its value.
 */

export const PII_ENTITY_TYPES = ["PERSON", "EMAIL", "PHONE", "CARD_NUMBER", "IBAN", "NATIONAL_ID", "ADDRESS", "DATE_OF_BIRTH"] as const;
export const PiiEntityTypeSchema = z.enum(PII_ENTITY_TYPES);
export type PiiEntityType = z.infer<typeof PiiEntityTypeSchema>;

/** What replaces an entity's words in the text: `[PERSON]`, `[EMAIL]`, … */
export const placeholderOf = (type: PiiEntityType): string => `[${type}]`;

/**
 * A transcription job's `options.redaction` (an extension of the spec): `enabled` (default true when
 * the option is sent) and the entity types to look for (default: all of them).
 */
export const RedactionOptionsSchema = z.strictObject({
  enabled: z.boolean().optional(),
  entities: z.array(PiiEntityTypeSchema).min(1).max(PII_ENTITY_TYPES.length).optional(),
});
export type RedactionOptions = z.infer<typeof RedactionOptionsSchema>;

/**
 * One entity found: where, not what. `start`/`end` are seconds of the media (from the first and last
 * redacted word's timings); `wordStart`/`wordEnd` index the segment's words before redaction
 * (end exclusive), so the audio of exactly those words can be silenced.
 */
export const RedactedEntitySchema = z.object({
  type: PiiEntityTypeSchema,
  segmentId: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  wordStart: z.number().int().nonnegative(),
  wordEnd: z.number().int().nonnegative(),
});
export type RedactedEntity = z.infer<typeof RedactedEntitySchema>;

/** A transcript's redaction as recorded: what found the entities, which types were looked for, and where each one was. */
export const RedactionRecordSchema = z.object({
  engine: z.string(),
  model: z.string(),
  entityTypes: z.array(PiiEntityTypeSchema),
  entities: z.array(RedactedEntitySchema),
  /** Entities found per type. */
  counts: z.record(z.string(), z.number().int().nonnegative()),
  /** Why the transcript was redacted: its job asked, or the project's policy requires it. */
  reason: z.enum(["job", "policy"]),
});
export type RedactionRecord = z.infer<typeof RedactionRecordSchema>;

/** A span of the media whose audio is silenced (or toned) in clips and dubs: a redacted entity's time. */
export const RedactedSpanSchema = z.object({ type: PiiEntityTypeSchema, start: z.number().nonnegative(), end: z.number().nonnegative() });
export type RedactedSpan = z.infer<typeof RedactedSpanSchema>;

/**
 * What replaces a redacted span's audio in clips and dubs: digital silence, or a 1 kHz tone at a
 * modest level (a bleep, so a listener hears that something was taken out).
 */
export const REDACTED_AUDIO_MODES = ["silence", "tone"] as const;
export const RedactedAudioModeSchema = z.enum(REDACTED_AUDIO_MODES);
export type RedactedAudioMode = z.infer<typeof RedactedAudioModeSchema>;
