import { z } from "zod";

/**
 * Request shapes of `POST /v1/jobs`, one schema per service type, exactly as the spec's tables
 * give them. Objects are strict: a field the spec says must not be sent (`priority`,
 * `options.preprocessing`, `options.analysis`, model options) is an unrecognised key, answered
 * 422 with issue `notAllowed` on its path.
 */

const custom = (issue: string, message: string) => ({ message, params: { issue } });

export const CUSTOMER_JOB_REF_MAX = 120;

export const UserMetadataSchema = z
  .object({
    customerJobRef: z
      .string()
      .max(CUSTOMER_JOB_REF_MAX, { message: `customerJobRef must be at most ${CUSTOMER_JOB_REF_MAX} characters` })
      .regex(/^[A-Za-z0-9_-]+$/, { message: "customerJobRef may contain only letters, digits, hyphen and underscore" })
      .optional(),
  })
  .catchall(z.unknown())
  .refine((v) => JSON.stringify(v).length <= 16_384, custom("tooBig", "userMetadata must be at most 16 KiB as JSON"));

/** An absolute http(s) URL; plain http is decided later against settings (loopback, local stacks). */
export const WebhookUrlSchema = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === "https:" || u.protocol === "http:";
    } catch {
      return false;
    }
  }, custom("invalidFormat", "webhookUrl must be an absolute URL starting with https://"));

const Id = (prefix: string) =>
  z
    .string({ message: "required" })
    .min(1, { message: "must not be empty", abort: true })
    .max(128)
    .refine((v) => v.startsWith(prefix), custom("invalidFormat", `must be an id starting with ${prefix}`));

/** Object keys: no leading slash, no `..` segments, no empty segments, printable. */
export const OutputPrefixSchema = z
  .string()
  .min(1)
  .max(512)
  .refine((v) => !v.startsWith("/"), custom("leadingSlash", "outputPrefix must be relative: no leading slash"))
  .refine((v) => !v.split("/").includes(".."), custom("dotDotSegment", "outputPrefix must not contain `..` segments"))
  .refine((v) => !v.replace(/^\/+/, "").split("/").slice(0, -1).includes(""), custom("emptySegment", "outputPrefix must not contain empty path segments"))
  .refine((v) => !/[\u0000-\u001f\u007f\\]/.test(v), custom("invalidFormat", "outputPrefix contains control characters or backslashes"));

export const ObjectKeySchema = z
  .string()
  .min(1)
  .max(1024)
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), custom("invalidFormat", "sourceKey contains control characters"));

export const LanguageCodeSchema = z
  .string()
  .regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, { message: "must be a language code such as `en` or `pt-BR`, not a display name" });

const SOURCE_LAYERS = ["current", "glossary", "raw"] as const;

const s3Source = {
  sourceType: z.literal("s3_direct").optional(),
  connectionId: z.string().min(1).max(128).optional(),
  bucket: z.string().min(1).max(255).optional(),
  sourceKey: ObjectKeySchema.optional(),
};

export const TranscriptionInputSchema = z.strictObject({
  sourceType: z.literal("s3_direct", { message: "sourceType must be s3_direct" }),
  connectionId: z.string().min(1).max(128),
  bucket: z.string().min(1).max(255),
  sourceKey: ObjectKeySchema,
  outputPrefix: OutputPrefixSchema.optional(),
  options: z.strictObject({ language: LanguageCodeSchema.optional() }).optional(),
});

export const TranslationInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  targetLanguage: LanguageCodeSchema,
  sourceLanguage: LanguageCodeSchema.optional(),
  sourceLayer: z.enum(SOURCE_LAYERS).optional(),
});

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
        .refine((d) => d.minSpeakers === undefined || d.maxSpeakers === undefined || d.minSpeakers <= d.maxSpeakers, custom("minAboveMax", "minSpeakers must not exceed maxSpeakers"))
        .optional(),
      voiceAssignments: z
        .record(z.string().regex(/^SPEAKER_\d{2}$/, { message: "keys must be diarization labels like SPEAKER_00" }), Id("vce_"))
        .optional(),
      voiceCloning: z.strictObject({ enabled: z.boolean().optional() }).optional(),
      tts: z.strictObject({ enabled: z.boolean().optional(), modelId: z.string().min(1).max(128).optional() }).optional(),
    })
    .optional(),
});

export const INDEXER_MAX_IDS = 50;
export const IndexerInputSchema = z.strictObject({
  textSourceIds: z.array(Id("txt_")).min(1, { message: "textSourceIds needs at least one id" }).max(INDEXER_MAX_IDS, { message: `textSourceIds takes at most ${INDEXER_MAX_IDS} ids` }),
});

export const MetadataInputSchema = z.strictObject({ textSourceId: Id("txt_") });

export const SummarizationInputSchema = z.strictObject({
  textSourceJobId: z
    .string({ message: "textSourceJobId is required" })
    .min(1, { message: "textSourceJobId must not be empty", abort: true })
    .max(128)
    .refine((v) => v.startsWith("job_") || v.startsWith("txt_"), custom("invalidFormat", "textSourceJobId must be a job_ or txt_ id")),
});

export const CLIP_LAYOUTS = ["vertical_9_16", "horizontal_in_vertical", "horizontal_16_9", "square_1_1"] as const;
export const FILL_STYLES = ["black", "blur", "branding"] as const;

export const ClipGenerationInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  ...s3Source,
  outputPrefix: OutputPrefixSchema.optional(),
  options: z
    .strictObject({
      maxClips: z.number().int().min(1).max(1000).optional(),
      layout: z.enum(CLIP_LAYOUTS).optional(),
      fillStyle: z.enum(FILL_STYLES).optional(),
      categoryOverride: z.string().min(1).max(64).optional(),
    })
    .optional(),
});

export const ThumbnailInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  ...s3Source,
  outputPrefix: OutputPrefixSchema.optional(),
  options: z
    .strictObject({
      thumbnailCount: z.number().int().min(1, { message: "thumbnailCount must be 1-3" }).max(3, { message: "thumbnailCount must be 1-3 (max 3 per job)" }).optional(),
      nonAiThumbnailCount: z.number().int().min(1).max(5).optional(),
      ratioWidth: z.number().int().min(1).max(100).optional(),
      ratioHeight: z.number().int().min(1).max(100).optional(),
      resolution: z.number().int().min(16).max(3840).optional(),
    })
    .refine(
      (o) => {
        const n = [o.ratioWidth, o.ratioHeight, o.resolution].filter((v) => v !== undefined).length;
        return n === 0 || n === 3;
      },
      custom("ratioIncomplete", "send ratioWidth, ratioHeight and resolution together, or none of them"),
    )
    .optional(),
});

const common = {
  userMetadata: UserMetadataSchema.optional(),
  webhookUrl: WebhookUrlSchema.optional(),
};

export const CreateJobSchema = z.discriminatedUnion(
  "serviceType",
  [
    z.strictObject({ serviceType: z.literal("transcription"), input: TranscriptionInputSchema, ...common }),
    z.strictObject({ serviceType: z.literal("translation"), input: TranslationInputSchema, ...common }),
    z.strictObject({ serviceType: z.literal("dubbing"), input: DubbingInputSchema, ...common }),
    z.strictObject({ serviceType: z.literal("indexer"), input: IndexerInputSchema, ...common }),
    z.strictObject({ serviceType: z.literal("metadata"), input: MetadataInputSchema, ...common }),
    z.strictObject({ serviceType: z.literal("summarization"), input: SummarizationInputSchema, ...common }),
    z.strictObject({ serviceType: z.literal("clip_generation"), input: ClipGenerationInputSchema, ...common }),
    z.strictObject({ serviceType: z.literal("thumbnail"), input: ThumbnailInputSchema, ...common }),
  ],
  { message: "serviceType must be one of transcription, clip_generation, thumbnail, metadata, indexer, summarization, translation, dubbing" },
);
export type CreateJobRequest = z.infer<typeof CreateJobSchema>;
