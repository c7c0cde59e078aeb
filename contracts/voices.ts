import { z } from "zod";
import { GrantedConsentSchema } from "./voice-consent";

/**
 * Voices (`vce_`), as the Worker stores and shows them. The voice itself is the synthesis engine's
 * `spec` (gpu-runner/engines/synthesis/interface.ts: a `profile` — a stock TTS voice with pitch and
 * rate matched to the speaker — or a `clone` of a hosted cloning model); the Worker keeps it as JSON
 * and reads only the fields every spec has.
 */
export const VOICE_KINDS = ["profile", "clone"] as const;

export const StoredVoiceSpecSchema = z
  .object({
    kind: z.enum(VOICE_KINDS),
    engine: z.string().min(1),
    language: z.string().min(1),
  })
  .loose();
export type StoredVoiceSpec = z.infer<typeof StoredVoiceSpecSchema>;

/** A created voice as the runner reports it (call `voices.create`, or a voice_creation job's result). */
export const CreatedVoiceSchema = z.object({
  spec: StoredVoiceSpecSchema,
  /** The engine's model as recorded (`espeak-ng 1.51`, the cloning model id). */
  model: z.string().min(1),
  /** The clone's reference clip in the bucket, when the engine keeps one (profiles keep none). */
  referenceKey: z.string().min(1).nullable(),
  /** Seconds of the speaker the voice was made from. */
  sampleSpeechSec: z.number().nonnegative(),
  /** Why the voice is what it is, when a policy decided (a profile for want of consent). */
  reason: z.string().optional(),
  /** The granted consent a clone was made under (`voiceCloning.requireConsent`). */
  consent: GrantedConsentSchema.nullable().optional(),
});
export type CreatedVoice = z.infer<typeof CreatedVoiceSchema>;
