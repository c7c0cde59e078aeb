import { z } from "zod";
import { TestStepSpecSchema } from "./pipelines";
import { CLIP_CATEGORIES, CLIP_LAYOUTS } from "./clips";
import { RedactedAudioModeSchema } from "./redaction";
import { HOSTED_SPEECH_ENGINES, ModelIdSchema, type HostedSpeechEngine } from "./model-refs";
import { LANGUAGE_CODE } from "./request-fields";
import { TRANSLATION_BACKENDS } from "./translation-languages";

/** Image engines a runner knows (gpu-runner/engines/image). */
export const TEXT_ENGINES = ["local-extractive", "workers-ai", "replicate", "openai-compatible"] as const;
export const EMBEDDING_ENGINES = ["local-wink", "workers-ai", "openai-compatible"] as const;
/** Catalog search rerankers (contracts/rerank), and `none`. */
export const RERANK_ENGINES = ["none", "local-wink", "tei", "workers-ai"] as const;
export const SPEECH_SYNTHESIS_ENGINES = ["local", "espeak-ng", "festival", "openai-compatible", "replicate"] as const;
export const DIARIZATION_ENGINES = ["local-mfcc", "replicate"] as const;
export const SPEECH_RECOGNITION_ENGINES = ["local-pocketsphinx", "openai-compatible", "workers-ai", "replicate"] as const;
/**
 * The recognisers that detect a recording's language themselves (Whisper, hosted); the local
 * PocketSphinx model knows one language. Only these can choose among a job's allowed languages.
 */
export const LANGUAGE_DETECTING_ENGINES: readonly (typeof SPEECH_RECOGNITION_ENGINES)[number][] = [
  "openai-compatible",
  "workers-ai",
  "replicate",
];
export const SEPARATION_ENGINES = ["local-filters", "replicate"] as const;
export const IMAGE_ENGINES = ["local-compositor", "workers-ai", "replicate", "openai-compatible"] as const;

/**
 * Platform settings: the operator's knobs (the spec's "platform admin settings"). Stored as one
 * JSON document in D1, edited through the admin routes, and always read through this schema so a
 * missing key falls back to its default.
 */
const PlanClipPolicy = z.object({
  maxClipsDefault: z.number().int().positive(),
  maxClipsCap: z.number().int().positive(),
  supportedLayouts: z.array(z.enum(["vertical_9_16", "horizontal_in_vertical", "horizontal_16_9", "square_1_1"])),
  supportedFillStyles: z.array(z.enum(["black", "blur", "branding"])),
  supportedCategories: z.array(z.string()),
  allowAutoLayout: z.boolean(),
  allowCategoryOverride: z.boolean(),
});

const PlanThumbnailPolicy = z.object({
  defaultThumbnailCount: z.number().int().min(1).max(3),
  maxNonAiThumbnailCount: z.number().int().min(1).max(5),
  /** The hosted image engine's model for this plan; null: the engine's default (ignored by the compositor). */
  imageModel: ModelIdSchema.nullable().default(null),
});

const PlanTranslationPolicy = z.object({ targetLanguages: z.array(z.string().regex(LANGUAGE_CODE)).nullable().default(null) }).prefault({});

/**
 * The usage meters, in service order: what each service's creates charge (worker/services), plus
 * `dubbing_voices`, the voices a dubbing makes for its speakers (charged when each is saved).
 */
export const QUOTA_METERS = [
  "transcription_jobs",
  "clip_credits",
  "thumbnail_credits",
  "metadata_credits",
  "indexing_credits",
  "summarization_credits",
  "translation_jobs",
  "dubbing_jobs",
  "dubbing_voices",
  "voice_creation",
] as const;
export type QuotaMeter = (typeof QUOTA_METERS)[number];

/**
 * The free plan's monthly limits. A free workspace transcribes 10 videos a month (the spec), so each
 * follow-on service gets about three runs per transcript; dubbing, the costliest (diarization,
 * separation and speech for the whole video on hosted engines), five jobs and twenty voices.
 */
export const FREE_PLAN_QUOTAS: Record<QuotaMeter, number | null> = {
  transcription_jobs: 10,
  clip_credits: 1000,
  thumbnail_credits: 100,
  metadata_credits: 30,
  indexing_credits: 100,
  summarization_credits: 30,
  translation_jobs: 30,
  dubbing_jobs: 5,
  dubbing_voices: 20,
  voice_creation: 10,
};
const UNLIMITED_QUOTAS = Object.fromEntries(QUOTA_METERS.map((m) => [m, null])) as Record<QuotaMeter, number | null>;

const MonthlyLimit = z.number().int().min(0).nullable();
function planQuotas(defaults: Record<QuotaMeter, number | null>) {
  const shape = Object.fromEntries(QUOTA_METERS.map((m) => [m, MonthlyLimit.default(defaults[m])]));
  return z.object(shape as Record<QuotaMeter, z.ZodDefault<typeof MonthlyLimit>>).prefault({});
}

const clipPlan = {
  maxClipsDefault: 3,
  maxClipsCap: 10,
  supportedLayouts: ["vertical_9_16", "horizontal_in_vertical", "horizontal_16_9", "square_1_1"] as const,
  supportedFillStyles: ["black", "blur", "branding"] as const,
  supportedCategories: [...CLIP_CATEGORIES],
  allowAutoLayout: true,
  allowCategoryOverride: true,
};

export const SettingsSchema = z.object({
  retry: z
    .object({
      maxAttempts: z.number().int().min(1).max(20).default(3),
      baseDelaySeconds: z.number().min(0).max(3600).default(10),
      maxDelaySeconds: z.number().min(0).max(43200).default(600),
      /**
       * A `runner_lost` attempt is retried after this flat delay instead of the backoff: the work
       * did not fail, its runner vanished, and another runner should resume it promptly.
       */
      runnerLostDelaySeconds: z.number().min(0).max(3600).default(2),
    })
    .prefault({}),
  runner: z
    .object({
      /**
       * Lease 20 s, heartbeat every 5 s: three beats may be missed before the lease lapses, and a
       * runner that dies is replaced within lease + runnerLostDelaySeconds (about 23 s).
       */
      leaseSeconds: z.number().int().min(2).max(3600).default(20),
      heartbeatIntervalSeconds: z.number().min(0.5).max(600).default(5),
      /**
       * The bounds every step that opens a customer's media keeps (docs/api.md "Limits and safety"):
       * runners are shared by every tenant, so no one job may fill a disk, hold a slot or decode a
       * picture without end. A source over a bound fails its job with the code named beside it.
       */
      /** Largest source a runner downloads (`source_too_large`): 10 GiB, about an hour of 4K at 20 Mb/s. */
      maxSourceBytes: z
        .number()
        .int()
        .min(1024 * 1024)
        .default(10 * 1024 ** 3),
      /** Free disk a runner keeps beyond a download's size; with less, the attempt fails `insufficient_disk` (retried on another runner). */
      minFreeDiskBytes: z
        .number()
        .int()
        .min(0)
        .default(2 * 1024 ** 3),
      /** Longest source of any service, measured by decoding, not taken from the container (`duration_exceeded`). The spec's 3,600 s. */
      maxDurationSec: z.number().positive().max(86_400).default(3600),
      /** Largest picture (`unsupported_media`): 8K UHD. */
      maxWidth: z.number().int().min(16).default(7680),
      maxHeight: z.number().int().min(16).default(4320),
      maxPixels: z
        .number()
        .int()
        .min(256)
        .default(7680 * 4320),
      /** Highest frame rate and most streams a source may declare (`unsupported_media`). */
      maxFrameRate: z.number().positive().default(240),
      maxStreams: z.number().int().min(1).default(32),
      /**
       * Wall-clock limits (`processing_timeout`): a child process or a stage may run
       * `baseSeconds + perSourceSecond × the source's duration`; a stuck tool is killed then.
       */
      timeLimits: z
        .object({
          baseSeconds: z.number().positive().default(600),
          perSourceSecond: z.number().positive().default(4),
        })
        .prefault({}),
      /**
       * A cancel lets the running stage finish (the spec's graceful cancel); a stage still running
       * this long after the runner learned of the cancel is stopped, so a stuck tool cannot hold
       * the cancel off.
       */
      cancelGraceSeconds: z.number().min(0).max(3600).default(30),
    })
    .prefault({}),
  transcription: z
    .object({
      speechEngine: z.enum(SPEECH_RECOGNITION_ENGINES).default("local-pocketsphinx"),
      speechModel: ModelIdSchema.optional(),
      supportedSourceLanguages: z.array(z.string()).default(["en"]),
      maxDurationSec: z.number().positive().default(3600),
      separateVocals: z.boolean().default(false),
      denoise: z.boolean().default(true),
      maxChunkSec: z.number().positive().default(120),
      singlePassMaxSec: z.number().nonnegative().default(90),
      allowedExtensions: z.array(z.string()).default(["mp4", "mov", "mkv", "webm", "avi", "m4v", "mpg", "mpeg", "ts", "flv", "wmv", "3gp"]),
      /**
       * Who tells a transcript's speakers apart (the dubbing engines: local Silero VAD + MFCC
       * clustering, or pyannote on Replicate); `none`: transcripts are not diarized unless the speech
       * engine labels speakers itself, and a job that asks for diarization is refused.
       */
      diarizationEngine: z.enum([...DIARIZATION_ENGINES, "none"]).default("local-mfcc"),
      diarizationModel: ModelIdSchema.nullable().default(null),
      /**
       * How long `POST /v1/audio/transcriptions` (the OpenAI-compatible endpoint) waits for its job
       * before answering 202 with the job to poll; 0 answers 202 at once.
       */
      openAiWaitSeconds: z.number().int().min(0).max(300).default(60),
    })
    .prefault({}),
  /** How clip generation works (the policy above says what a plan may ask for). */
  clips: z
    .object({
      /** Moment length bounds, seconds: a clip starts and ends on sentence boundaries within these. */
      minClipSec: z.number().positive().default(15),
      maxClipSec: z.number().positive().default(60),
      /** A pause at least this long ends a sentence when the transcript has no punctuation (PocketSphinx). */
      sentencePauseSec: z.number().positive().default(0.45),
      /** Faces, mouths and bodies on sampled frames; off: `analyze_scenes` is skipped and crops follow the salient region. */
      vision: z.boolean().default(true),
      visionEngine: z.enum(["local-human"]).default("local-human"),
      /** Frames analysed per second of source (detectors never run on every frame). */
      visionFps: z.number().positive().max(10).default(3),
      /**
       * Most frames analysed across the whole source (every frame up to visionFps × 50 s); beyond
       * that the source is sampled sparsely and the chosen moments are analysed at visionFps. The
       * sparse frames feed the category, the layout and the moment score's speaker changes, not the
       * crop; on a 10-minute source 150 frames (one every 4.3 s) cost about 12 CPU-seconds on the 2-core
       * benchmark machine, 300 twice that (docs/benchmarks.md, "Clip generation").
       */
      visionMaxFrames: z.number().int().min(30).max(100_000).default(150),
      category: z.boolean().default(true),
      categoryEngine: z.enum(["local-lexicon", "openai-compatible", "workers-ai"]).default("local-lexicon"),
      /** The layout when the request names none and auto layout is off or undecided. */
      defaultLayout: z.enum(CLIP_LAYOUTS).default("vertical_9_16"),
      /** Crop smoothing: the speaker may drift this share of the crop width before the crop moves. */
      deadZone: z.number().min(0).max(0.5).default(0.12),
      /** Fastest pan, in crop widths per second. */
      maxPanSpeed: z.number().positive().default(2),
      /** libx264 preset and CRF of the rendered clips. */
      x264Preset: z.string().default("veryfast"),
      crf: z.number().int().min(10).max(40).default(21),
      fps: z.number().int().min(15).max(60).default(30),
      /**
       * Clips rendered at once. One libx264 encode keeps about 1.75 of 2 cores busy; a second one
       * fills the rest (a job's render stage about 8 % sooner on the 2-core benchmark machine). Each
       * render of a 1080×1920 clip takes about 340 MiB.
       */
      rendersAtOnce: z.number().int().min(1).max(8).default(2),
      brandColor: z
        .string()
        .regex(/^#[0-9a-fA-F]{6}$/)
        .default("#1f2937"),
      /** What replaces a redacted word's audio in a clip (contracts/redaction.ts): silence, or a 1 kHz tone. */
      redactedAudio: RedactedAudioModeSchema.default("silence"),
    })
    .prefault({}),
  thumbnails: z
    .object({
      /** What makes the covers: the local compositor (no model), or a hosted text-to-image model. */
      imageEngine: z.enum(IMAGE_ENGINES).default("local-compositor"),
      /** JPEG quality of covers and frame picks: low 70, medium 82, high 92, auto 88. */
      imageQuality: z.enum(["low", "medium", "high", "auto"]).default("auto"),
      /** Most candidate frames decoded and scored per job (scene representatives first). */
      maxCandidates: z.number().int().min(4).max(60).default(24),
      /** Faces on candidate frames (frontal, eyes open) count towards a frame's score. */
      vision: z.boolean().default(true),
      visionEngine: z.enum(["local-human"]).default("local-human"),
    })
    .prefault({}),
  dubbing: z
    .object({
      /** Who speaks: `local` (Festival HTS where Debian ships a voice, eSpeak NG otherwise), or a hosted cloning model. */
      speechEngine: z.enum(SPEECH_SYNTHESIS_ENGINES).default("local"),
      /** The hosted speech model; null: the engine's default. A job's `options.tts.modelId` may name another of `modelChoices.dubbingSpeech`. */
      speechModel: ModelIdSchema.nullable().default(null),
      /** Who tells speakers apart: `local-mfcc` (Silero VAD, MFCC, agglomerative clustering) or pyannote on Replicate. */
      diarizationEngine: z.enum(DIARIZATION_ENGINES).default("local-mfcc"),
      diarizationModel: ModelIdSchema.nullable().default(null),
      /**
       * What splits the source's sound into vocals and background: `local-filters` (ffmpeg: speech
       * ducked by `duckDb`, not removed) or Demucs on Replicate (speech removed).
       */
      separationEngine: z.enum(SEPARATION_ENGINES).default("local-filters"),
      /** The hosted separation model (`owner/name:version`); null: the engine's default. */
      separationModel: ModelIdSchema.nullable().default(null),
      /** Integrated loudness of the final mix (EBU R128 / ITU BS.1770), true peak under -1.5 dBTP. */
      mixLoudnessLufs: z.number().min(-31).max(-9).default(-16),
      /** How far the original speech is lowered under the dubbed speech, in dB (by engines that duck rather than remove it). */
      duckDb: z.number().min(0).max(60).default(18),
      /** What replaces a redacted word's audio in every artifact of a dub: silence, or a 1 kHz tone. */
      redactedAudio: RedactedAudioModeSchema.default("silence"),
    })
    .prefault({}),
  understanding: z
    .object({
      /** What writes metadata and summaries: the local extractive engine (the transcript's own words, no model) or a hosted language model. */
      textEngine: z.enum(TEXT_ENGINES).default("local-extractive"),
      /** The hosted backend's model id; null: the engine's default (gpu-runner/engines/text/factory.ts). */
      textModel: ModelIdSchema.nullable().default(null),
    })
    .prefault({}),
  catalog: z
    .object({
      /**
       * What embeds chunks (indexer, on the runner) and queries (search, in the Worker): both sides
       * read this, so documents and queries share one vector space. Changing it needs a re-index;
       * search skips chunks embedded by another model and says so.
       */
      embeddingEngine: z.enum(EMBEDDING_ENGINES).default("local-wink"),
      embeddingModel: ModelIdSchema.nullable().default(null),
      /** Chunks are whole consecutive segments of about this length, overlapping by whole segments. */
      chunkMinSeconds: z.number().min(5).max(600).default(30),
      chunkMaxSeconds: z.number().min(10).max(900).default(60),
      chunkOverlapSeconds: z.number().min(0).max(120).default(10),
      /** Candidates each ranked list (dense, sparse) brings to the fusion. */
      candidates: z.number().int().min(10).max(500).default(100),
      /** Reciprocal rank fusion's k (Cormack et al. 2009 use 60). */
      rrfK: z.number().int().min(1).max(1000).default(60),
      /**
       * What reorders the head of a hybrid search's fused list by reading the query and each chunk
       * together (contracts/rerank): `local-wink` through the local engine process
       * (EMBEDDINGS_BASE_URL), `tei` a cross-encoder on the GPU box (RERANK_BASE_URL), `workers-ai`
       * bge-reranker-base through the AI binding; `none` keeps the fused order.
       */
      rerankEngine: z.enum(RERANK_ENGINES).default("local-wink"),
      rerankModel: ModelIdSchema.nullable().default(null),
      /** How many of the fused list's first candidates the reranker reorders. */
      rerankCandidates: z.number().int().min(2).max(100).default(20),
    })
    .prefault({}),
  policy: z
    .object({
      clip_generation: z.object({ free: PlanClipPolicy, enterprise: PlanClipPolicy }).default({
        free: { ...clipPlan, supportedLayouts: [...clipPlan.supportedLayouts], supportedFillStyles: [...clipPlan.supportedFillStyles] },
        enterprise: {
          ...clipPlan,
          maxClipsDefault: 5,
          maxClipsCap: 30,
          supportedLayouts: [...clipPlan.supportedLayouts],
          supportedFillStyles: [...clipPlan.supportedFillStyles],
        },
      }),
      thumbnail: z.object({ free: PlanThumbnailPolicy, enterprise: PlanThumbnailPolicy }).default({
        free: { defaultThumbnailCount: 1, maxNonAiThumbnailCount: 3, imageModel: null },
        enterprise: { defaultThumbnailCount: 3, maxNonAiThumbnailCount: 5, imageModel: null },
      }),
      translation: z
        .object({
          /** The runner's translation engine (gpu-runner/engines/translation); the pairs follow from it. */
          backend: z.enum(TRANSLATION_BACKENDS).default("apertium"),
          /** The hosted backend's model; null: the engine's default (Apertium's mode follows the pair). */
          model: ModelIdSchema.nullable().default(null),
          /** What a language-model backend (replicate, openai-compatible) translates between: any into any other. */
          languages: z.array(z.string().regex(LANGUAGE_CODE)).default(["en", "es", "fr", "de", "it", "pt", "ca", "nl", "ja", "zh"]),
          /** Target languages each plan may ask for; null: every target the backend has. */
          free: PlanTranslationPolicy,
          enterprise: PlanTranslationPolicy,
        })
        .prefault({}),
    })
    .prefault({}),
  webhooks: z
    .object({
      /** Plain http is accepted only for loopback hosts, and only when this is on (local stacks). */
      allowLoopbackHttp: z.boolean().default(false),
      maxAttempts: z.number().int().min(1).max(100).default(20),
      /** Delay before retry n is base * 2^(n-1), capped at maxDelaySeconds: 20 attempts span > 24 h. */
      retryBaseDelaySeconds: z.number().min(0).max(3600).default(30),
      retryMaxDelaySeconds: z.number().min(0).max(43200).default(21600),
      timeoutMs: z.number().int().min(100).max(30000).default(10000),
    })
    .prefault({}),
  /**
   * What a request may choose of the operator's hosted engines (docs/api.md "Hosted engines and plan
   * limits"). A model a customer names runs on the operator's account, so it must be listed here,
   * per hosted engine: the ids a request may name besides the configured model. Empty (the
   * default): a request may name only the configured model (`dubbing.speechModel`, else the
   * engine's own), that is, it has no choice until the operator lists some.
   */
  modelChoices: z
    .object({
      /** Dubbing's `input.options.tts.modelId`, per hosted speech engine (the local engines have no models to choose). */
      dubbingSpeech: z
        .object(
          Object.fromEntries(HOSTED_SPEECH_ENGINES.map((e) => [e, z.array(ModelIdSchema).max(50).default([])])) as Record<
            HostedSpeechEngine,
            z.ZodDefault<z.ZodArray<typeof ModelIdSchema>>
          >,
        )
        .prefault({}),
    })
    .prefault({}),
  /**
   * Monthly limits per plan and usage meter (worker/accounts/credits.ts; docs/api.md "Quotas and
   * credits"): a create that would pass its meter's limit is refused 429 `quotaExceeded`. `null`:
   * unlimited, still metered. The free plan's transcription, clip and thumbnail limits are the
   * spec's; the others keep a free workspace from running unbounded hosted-engine cost.
   */
  quotas: z
    .object({
      free: planQuotas(FREE_PLAN_QUOTAS),
      pro: planQuotas(UNLIMITED_QUOTAS),
      enterprise: planQuotas(UNLIMITED_QUOTAS),
    })
    .prefault({}),
  /**
   * Test-only pipelines, honoured only when the Worker runs with ALLOW_TEST_PIPELINES=true. They let
   * the machinery be exercised on service types whose real pipeline is not built yet.
   */
  testPipelines: z.record(z.string(), z.array(TestStepSpecSchema)).default({}),
});
export type Settings = z.infer<typeof SettingsSchema>;
export type SettingsInput = z.input<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = SettingsSchema.parse({});
