import { z } from "zod";
import { custom, Id, LanguageCodeSchema, SOURCE_LAYERS } from "../request-fields";
import { COMMON_FAILURE_CODES, defineService } from "./types";

/** Dubbed audio and video from a transcript and its translation (pipeline not built yet). */

export const DubbingInputSchema = z.strictObject({
  transcriptionId: Id("txt_"),
  targetLanguage: LanguageCodeSchema,
  sourceLanguage: LanguageCodeSchema.optional(),
  sourceLayer: z.enum(SOURCE_LAYERS).optional(),
  translationId: Id("trl_").optional(),
  options: z
    .strictObject({
      diarization: z
        .strictObject({
          enabled: z.boolean().optional(),
          minSpeakers: z.number().int().min(1).max(32).optional(),
          maxSpeakers: z.number().int().min(1).max(32).optional(),
        })
        .refine(
          (d) => d.minSpeakers === undefined || d.maxSpeakers === undefined || d.minSpeakers <= d.maxSpeakers,
          custom("minAboveMax", "minSpeakers must not exceed maxSpeakers"),
        )
        .optional(),
      voiceAssignments: z
        .record(z.string().regex(/^SPEAKER_\d{2}$/, { message: "keys must be diarization labels like SPEAKER_00" }), Id("vce_"))
        .optional(),
      voiceCloning: z.strictObject({ enabled: z.boolean().optional() }).optional(),
      tts: z.strictObject({ enabled: z.boolean().optional(), modelId: z.string().min(1).max(128).optional() }).optional(),
    })
    .optional(),
});

export const dubbingService = defineService({
  serviceType: "dubbing",
  input: DubbingInputSchema,
  stages: ["load_transcription", "diarize", "synthesize_speech", "mix_audio", "render_video", "upload_artifacts"],
  steps: [],
  failureCodes: [...COMMON_FAILURE_CODES],
  nonRetryableCodes: [],
});
