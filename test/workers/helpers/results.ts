import type { ClipGenerationResult } from "../../../contracts/clips";
import type { Job } from "../../../contracts/job";
import type { DubbingSave } from "../../../contracts/services/dubbing";
import type { ThumbnailResult } from "../../../contracts/thumbnails";

/** Valid results of the runner steps that write objects, with their keys under the job's prefix. */

/**
 * A clip result as the runner would send it, for `count` clips the test pretends to have rendered:
 * a bucket job's files under `{resolvedOutputPrefix}{clipGenerationId}/`, a presigned job's at its
 * own URLs (the n-th of each list, redacted as the job shows them).
 */
export function clipResult(job: Job, count: number): ClipGenerationResult {
  const urls = job.input["outputUrls"] as { video: string[]; poster: string[] } | undefined;
  const prefix = `${String(job.input["resolvedOutputPrefix"])}${String(job.input["clipGenerationId"])}/`;
  return {
    layout: "vertical_9_16",
    layoutReason: "requested",
    fillStyle: null,
    category: "interview",
    categoryConfidence: 0.7,
    categorySource: "detected",
    captions: true,
    sourceDurationSec: 8,
    candidateCount: 3,
    engines: {
      vision: { engine: "local-human", model: "human" },
      category: { engine: "local-lexicon", model: "lexicon" },
      renderer: "ffmpeg",
    },
    clips: Array.from({ length: count }, (_, i) => ({
      index: i,
      start: i * 2,
      end: i * 2 + 2,
      durationSec: 2,
      title: `Clip ${i + 1}`,
      score: 0.5,
      scoreParts: { hook: 0.5 },
      text: `segment number ${i}`,
      videoKey: urls ? urls.video[i]! : `${prefix}clip-0${i + 1}.mp4`,
      posterKey: urls ? urls.poster[i]! : `${prefix}clip-0${i + 1}.jpg`,
      width: 1080,
      height: 1920,
    })),
  };
}

export function thumbnailResult(job: Job, covers: number, frames: number): ThumbnailResult {
  const prefix = `${String(job.input["resolvedOutputPrefix"])}${job.jobId}/`;
  const size = job.input["size"] as { width: number; height: number };
  const entry = (kind: "cover" | "frame", n: number) => ({
    thumbnailId: `${job.jobId}-${kind}-${n}`,
    jobId: job.jobId,
    kind,
    bucket: String(job.input["bucket"]),
    key: `${prefix}${kind}-${n}.jpg`,
    ...size,
    bytes: 1000,
    frameTimeSec: n,
    engine: kind === "cover" ? "local-compositor" : "frame-selector",
    model: "m",
    engineKind: kind === "cover" ? ("compositor" as const) : ("frame" as const),
    prompt: null,
    title: kind === "cover" ? "A title" : null,
    scores: null,
    details: {},
    createdAt: new Date().toISOString(),
  });
  return {
    size,
    sourceDurationSec: 8,
    candidateCount: 12,
    title: "A title",
    keywords: ["title"],
    engines: { image: { engine: "local-compositor", model: "compositor-1", kind: "compositor" }, vision: null },
    thumbnails: [
      ...Array.from({ length: covers }, (_, i) => entry("cover", i + 1)),
      ...Array.from({ length: frames }, (_, i) => entry("frame", i + 1)),
    ],
  };
}

/** The record as the runner saves it: its files under the job's prefix, SPEAKER_00 voiced by `voiceId` (one the job made). */
export function dubbingSave(job: Job, voiceId: string, o: Partial<DubbingSave> = {}): DubbingSave {
  const prefix = String(job.input["resolvedOutputPrefix"]);
  return {
    translationId: String(job.input["translationId"]),
    durationSec: 6,
    artifacts: {
      rawAudio: `${prefix}raw_audio.flac`,
      vocals: `${prefix}vocals.flac`,
      background: `${prefix}background.flac`,
      speech: `${prefix}speech.es.flac`,
      mix: `${prefix}mix.es.m4a`,
      video: `${prefix}dubbed.es.mp4`,
    },
    speakers: [
      {
        label: "SPEAKER_00",
        status: "voiced",
        voiceId,
        voiceSource: "auto_created",
        voiceKind: "profile",
        speechSec: 5,
        segmentCount: 3,
      },
    ],
    segments: [],
    engines: {
      translation: { backend: "apertium", model: "apertium:eng-spa" },
      diarization: { engine: "local-mfcc", model: "silero-vad-v5+mfcc-pitch-ahc" },
      speech: { engine: "local", model: "espeak-ng 1.51" },
      separation: { engine: "ffmpeg-filters", method: "duck" },
    },
    sync: { maxStartOffsetSec: 0, maxOverrunRatio: 0, durationDeltaSec: 0.01 },
    loudness: { integratedLufs: -16.1, truePeakDbtp: -2 },
    timing: { synthesize_speech: 1.2 },
    ...o,
  };
}
