import { z } from "zod";

/**
 * What the Worker's `fetch_transcription` step (clips, thumbnails) keeps for the runner step after it:
 * the scratch keys it wrote in the job's bucket. Both are absent for an `s3_presigned` job, whose
 * runner step reads the transcript through the call `handover.transcript` instead.
 */
export const TranscriptHandoverOutputSchema = z.object({
  /** The transcript's current segments with their words, as JSON. */
  transcriptKey: z.string().min(1).optional(),
  /** The project's brand logo, copied beside the transcript for a clip's `branding` fill. */
  logoKey: z.string().min(1).optional(),
});
export type TranscriptHandoverOutput = z.infer<typeof TranscriptHandoverOutputSchema>;

/** The outputs a step after `fetch_transcription` reads. */
export interface AfterTranscriptHandover {
  fetch_transcription?: TranscriptHandoverOutput;
}
