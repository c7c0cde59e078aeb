import type { ClipGenerationResult } from "../../../contracts/clips";
import type { Job } from "../../../contracts/job";

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
