import { z } from "zod";

/**
 * A project's data policy (issue 25, docs/api.md "Your data"): how long what the project holds is
 * kept, whether personal data is redacted from transcripts and everything made from them, and
 * whether a speaker's voice may be cloned without their consent. Set with a workspace key
 * (`PATCH /v1/projects/{id}` `dataPolicy`); every field has a default, so a project that never set
 * one behaves as the spec does.
 */

/**
 * `off`: no transcript is redacted, and a job asking for it is refused (422).
 * `optional`: a transcription job redacts when its `options.redaction` asks.
 * `required`: every transcript is redacted, and every output made from a transcript (its files,
 * translations, metadata, summaries, the search index, clip captions, the audio of clips and dubs)
 * reads the redacted layer, never another.
 */
export const REDACTION_MODES = ["off", "optional", "required"] as const;
export const RedactionModeSchema = z.enum(REDACTION_MODES);
export type RedactionMode = z.infer<typeof RedactionModeSchema>;

/** Days something is kept, or null: kept until deleted. At most ten years. */
const RetentionDaysSchema = z.number().int().min(1).max(3650).nullable();

export const DataPolicySchema = z.strictObject({
  /** Transcripts and every record made from them (and their objects, chunks and scratch), by age. */
  retentionDays: RetentionDaysSchema,
  /** Finished job rows (and their webhook deliveries), by age. */
  jobRetentionDays: RetentionDaysSchema,
  redaction: RedactionModeSchema,
  /**
   * Whether a redacted transcript keeps its unredacted layers (`raw`, `glossary`, `segments`). When
   * false they are never stored; when true they are returned only to a key holding
   * `transcript:read_unredacted`.
   */
  keepUnredacted: z.boolean(),
  voiceCloning: z.strictObject({
    /** A speaker's voice is cloned only with a consent record for that speaker (else a voice profile). */
    requireConsent: z.boolean(),
  }),
});
export type DataPolicy = z.infer<typeof DataPolicySchema>;

/** What a project that never set a policy gets: the spec's behaviour. */
export const DEFAULT_DATA_POLICY: DataPolicy = {
  retentionDays: null,
  jobRetentionDays: null,
  redaction: "optional",
  keepUnredacted: true,
  voiceCloning: { requireConsent: false },
};

/** A change to the policy: any subset of its fields (voiceCloning whole). */
export const DataPolicyPatchSchema = DataPolicySchema.partial().refine((p) => Object.keys(p).length > 0, {
  message: "send at least one dataPolicy field",
  params: { issue: "empty" },
});
export type DataPolicyPatch = z.infer<typeof DataPolicyPatchSchema>;

/** The stored policy (null or partial from an older version) with every default filled. */
export function effectiveDataPolicy(stored: Partial<DataPolicy> | null | undefined): DataPolicy {
  return {
    ...DEFAULT_DATA_POLICY,
    ...(stored ?? {}),
    voiceCloning: { ...DEFAULT_DATA_POLICY.voiceCloning, ...(stored?.voiceCloning ?? {}) },
  };
}
