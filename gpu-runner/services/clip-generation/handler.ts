import { ClipGenerationResultSchema } from "../../../contracts/clips";
import type { renderClipsStep } from "../../../contracts/services/clip-generation";
import { handedOverTranscript } from "../shared/handover";
import type { ServiceStepHandler } from "../types";
import {
  analysisDetails,
  analyzeScenes,
  buildTimeline,
  candidatesDetails,
  chooseFormat,
  clipResult,
  detectCandidates,
  detectClipCategory,
  detectScenes,
  downloadDetails,
  downloadSource,
  ingest,
  ingestDetails,
  openClipRun,
  renderClips,
  renderDetails,
  requireMoments,
  scenesDetails,
  startAnalysis,
  timelineDetails,
  uploadClips,
  uploadDetails,
  VISION_OFF,
  type ClipHandlerDeps,
  type ClipRun,
} from "./stages";
import { speakerNamesOf, wordsOf } from "./timeline";
import { speechTest, visualSummary } from "./visual-summary";

/**
 * The clip generation runner step: from the source video and its transcript (handed over by the
 * Worker's `fetch_transcription` step as a scratch object) to rendered, uploaded clips, one
 * function of stages.ts per stage. `detect_category` reports itself (category.ts): it may be
 * skipped mid-way. The moments render while later ones are prepared (render-moments.ts).
 */

export { RENDERER, type ClipHandlerDeps } from "./stages";

type ClipHandler = ServiceStepHandler<"clip_generation", typeof renderClipsStep>;

export function createClipGenerationHandler(deps: ClipHandlerDeps = {}): ClipHandler {
  return async (ctx) => {
    const run = await openClipRun(ctx, deps);
    try {
      return await runClips(run);
    } finally {
      for (const e of run.engines) await e.close();
    }
  };
}

async function runClips(run: ClipRun) {
  const { report } = run.ctx;
  const transcript = await handedOverTranscript(run.ctx);
  await report.stage("download", () => downloadSource(run), downloadDetails(run));
  // The sparse vision pass starts with the decode: each frame goes to the engine once written.
  const ing = await report.stage("ingest", () => ingest(run), ingestDetails);
  const scenes = await report.stage("detect_scenes", () => detectScenes(ing), scenesDetails);
  const sparse = ing.sparse;
  const observations = sparse
    ? await report.stage("analyze_scenes", () => analyzeScenes(sparse), analysisDetails(run, ing, sparse))
    : await report.skip("analyze_scenes", VISION_OFF).then(() => []);

  const words = wordsOf(transcript);
  const speaking = speechTest(words);
  const analysis = startAnalysis(observations, speaking);
  const timeline = await report.stage("build_timeline", () => buildTimeline(run, ing, scenes.cuts, words, analysis), timelineDetails);
  const visual = visualSummary(analysis.observations, analysis.targets, timeline, ing.info.durationSec);
  const category = await detectClipCategory(run, words, visual);
  const format = chooseFormat(run, category, visual);
  const found = await report.stage("detect_candidates", () => detectCandidates(run, timeline), candidatesDetails(run));
  requireMoments(found);

  const redactedSpans = transcript.redactedSpans ?? [];
  const rendered = await report.stage(
    "render_clips",
    () => renderClips(run, { ing, timeline, analysis, speaking, format, found, speakerNames: speakerNamesOf(transcript), redactedSpans }),
    renderDetails(run, format),
  );
  const clips = await report.stage("upload_clips", () => uploadClips(run, rendered.clips, format.layout), uploadDetails);
  return ClipGenerationResultSchema.parse(
    clipResult(run, {
      ing,
      category,
      format,
      found,
      clips,
      redactedSpans: redactedSpans.length > 0 ? rendered.clips.reduce((n, c) => n + c.redactedSpans, 0) : null,
    }),
  );
}

export const clipGenerationHandler = createClipGenerationHandler();
