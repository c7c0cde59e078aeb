import { z } from "zod";
import type { ServiceType } from "./service-types";

/**
 * The stage registry. A pipeline is an ordered list of steps; each step runs on one executor
 * (`runner` for heavy work leased by a gpu-runner, `worker` for light work run inside the queue
 * consumer) and reports the spec's progress stages as it goes. Adding a service type means adding
 * its steps here and a handler on the executor: nothing else in the job machinery changes.
 */
export const StepSpecSchema = z.object({
  name: z.string().min(1).max(64),
  executor: z.enum(["runner", "worker"]),
  /** Name of the handler on the executor, e.g. `transcription` on the runner. */
  handler: z.string().min(1).max(64),
  /** Progress stages this step may emit (the spec's per-service stage list). */
  stages: z.array(z.string()).min(1),
  /** Handler parameters fixed by the platform (never by the client). */
  params: z.record(z.string(), z.unknown()).default({}),
});
export type StepSpec = z.infer<typeof StepSpecSchema>;

export const TRANSCRIPTION_STAGES = [
  "download",
  "probe",
  "extract_audio",
  "denoise_audio",
  "separate_vocals",
  "transcribe",
  "split_chunk",
  "compress_chunk",
  "transcribe_chunk",
  "merge",
  "transcribe_file",
  "video_analysis",
  "upload_full_text",
  "upload_segments",
  "upload_transcript_srt",
  "upload_transcript_vtt",
] as const;

/** Progress stages per service type, from the spec's "Progress events" table. */
export const SERVICE_STAGES: Record<ServiceType, readonly string[]> = {
  transcription: TRANSCRIPTION_STAGES,
  indexer: ["fetch_transcription", "chunk", "embed_sparse", "embed_dense", "index", "cutover", "rollback"],
  clip_generation: [
    "fetch_transcription",
    "download",
    "ingest",
    "detect_scenes",
    "analyze_scenes",
    "build_timeline",
    "detect_category",
    "detect_candidates",
    "render_clips",
    "upload_clips",
  ],
  thumbnail: [
    "download",
    "fetch_transcription",
    "thumbnail_ingest",
    "thumbnail_encode",
    "thumbnail_analyze",
    "thumbnail_merge",
    "thumbnail_audio",
    "thumbnail_generate",
    "upload_thumbnail_1",
    "upload_thumbnail_2",
    "upload_thumbnail_3",
    "thumbnail_pipeline",
  ],
  metadata: ["load_transcription", "generate_metadata", "save_metadata"],
  summarization: ["synthesis"],
  translation: ["load_transcription", "translate", "save_translation"],
  dubbing: ["load_transcription", "diarize", "synthesize_speech", "mix_audio", "render_video", "upload_artifacts"],
};

/** Pipelines that are built. A service type absent here is refused at create (`serviceNotAvailable`). */
export const BUILT_PIPELINES: Partial<Record<ServiceType, StepSpec[]>> = {
  transcription: [
    { name: "transcribe", executor: "runner", handler: "transcription", stages: [...TRANSCRIPTION_STAGES], params: {} },
  ],
};
