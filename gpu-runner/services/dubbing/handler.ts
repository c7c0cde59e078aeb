import { DubbingResultSchema, type dubStep } from "../../../contracts/services/dubbing";
import type { Diarization } from "../../engines/diarization/interface";
import type { FitResult } from "../../engines/synthesis/fit";
import { parseStepSettings } from "../../step-input";
import { loadTranslationSource } from "../translation/run";
import type { ServiceStepHandler } from "../types";
import { diarizationEngine, separationEngine, synthesisEngine, translationEngine, type DubbingHandlerDeps } from "./engines";
import { consentAware } from "../shared/consent-voices";
import { provenanceTags } from "./provenance";
import { dubbedSegments, dubbingResult, dubbingSave, stageTimer } from "./record";
import { speechStretches } from "./slots";
import * as details from "./stage-details";
import * as stages from "./stages";

/**
 * Dubbing on the runner, one step:
 *   load_transcription  the translation to speak: the given one (call `dubbing.translation`), or
 *   translate           made here exactly as a translation job makes it, subtitles and record included
 *   download, extract_audio   the source; its sound as the raw artifact and a 16 kHz analysis copy
 *   separate_audio      background and vocals by the chosen separation engine (ffmpeg filters
 *                       ducking speech, or Demucs on Replicate removing it)
 *   diarize             who speaks when: the transcript's own speaker labels when it was diarized,
 *                       else the diarization engine (skipped when disabled: one speaker, SPEAKER_00)
 *   assign_voices       per speaker: the assigned voice, or one made from the speaker's own audio
 *                       (`voices.create`), or none: marked for manual assignment, left silent
 *   synthesize_speech   every segment spoken by its speaker's voice, fitted into its slot (slots.ts)
 *   mix_audio, render_video, upload_artifacts, save_dubbing (call `dubbing.save`)
 * One function of stages.ts per stage; each engine is made just before its stage, as its choice may fail.
 */
type Handler = ServiceStepHandler<"dubbing", typeof dubStep>;
export type { DubbingHandlerDeps } from "./engines";

const NO_SPEAKERS: Diarization = { turns: [], speakers: [] };
const NOTHING_SPOKEN: ReadonlyMap<number, FitResult> = new Map();

/** The two translation stages: a given translation is loaded (translate skipped), or this job translates. */
async function speakTranslation(ctx: Parameters<Handler>[0], deps: DubbingHandlerDeps) {
  const { report, input } = ctx;
  if (!input.translation) {
    const given = await report.stage("load_transcription", () => stages.loadGivenTranslation(ctx), details.givenTranslationDetails);
    await report.skip("translate", `translation ${input.translationId} was given`);
    return { segments: given.segments, engine: { backend: given.translationBackend, model: given.model } };
  }
  const plan = input.translation;
  const source = await report.stage("load_transcription", () => loadTranslationSource(ctx), details.transcriptDetails);
  const engine = translationEngine(deps, plan);
  const translated = details.translateDetails(plan.translationId, engine.engine);
  const t = await report.stage("translate", () => stages.translate(ctx, plan, engine, source), translated);
  return { segments: t.segments, engine: { backend: engine.engine, model: t.model } };
}

export function createDubbingHandler(deps: DubbingHandlerDeps = {}): Handler {
  return async (ctx) => {
    const { report, task, input } = ctx;
    const { engines, options } = input;
    const { runner } = parseStepSettings(task.settings, ["runner"]);
    const { timing, timed, stage } = stageTimer(report);

    const translation = await timed("translate", () => speakTranslation(ctx, deps));
    const run = await stages.openDubbingRun(ctx);
    await stage(
      "download",
      () => stages.download(run),
      (bytes) => ({ bytes }),
    );
    const source = await stage("extract_audio", () => stages.extractAudio(run, runner), details.sourceDetails);
    const durationSec = source.durationSec;

    const stretches = speechStretches(translation.segments);
    const separator = separationEngine(deps, engines);
    const separated = details.separateDetails(separator, stretches.length, engines.duckDb);
    await stage("separate_audio", () => stages.separateAudio(run, separator, stretches), separated);

    // A diarized transcript already says who speaks: its labels (and the names people gave them) key the voices.
    const labelled = options.diarization.enabled ? await stages.transcriptDiarization(ctx) : null;
    const diarizer = options.diarization.enabled && !labelled ? diarizationEngine(deps, engines) : null;
    const diarization = labelled
      ? await stage("diarize", async () => labelled.diarization, details.transcriptSpeakersDetails)
      : diarizer
        ? await stage("diarize", () => stages.diarize(run, diarizer), details.diarizeDetails(diarizer))
        : await report.skip("diarize", "diarization disabled: every segment is SPEAKER_00").then(() => NO_SPEAKERS);
    const speakers = stages.speakersOf(translation.segments, durationSec, diarization);

    const synth = options.tts.enabled ? consentAware(synthesisEngine(deps, engines), deps.env ?? process.env, deps.createProfiles) : null;
    const voices = await stage("assign_voices", () => stages.assignVoices(run, synth, speakers.labels, diarization), details.voicesDetails);
    const voiceOf = new Map(voices.map((v) => [v.label, v]));
    const fitted = synth
      ? await stage("synthesize_speech", () => stages.synthesizeSpeech(run, synth, speakers, voiceOf), details.speechDetails(synth))
      : await report.skip("synthesize_speech", "tts disabled: the dub keeps the background only").then(() => NOTHING_SPOKEN);

    const mixed = details.mixDetails(engines.mixLoudnessLufs);
    const loudness = await stage("mix_audio", () => stages.mixAudio(run, speakers, fitted, durationSec), mixed);
    const speechModels = synth ? [...new Set(voices.flatMap((v) => (v.voice ? [synth.modelFor(v.voice)] : [])))] : [];
    const tags = provenanceTags({
      dubbingId: input.dubbingId,
      translation: { backend: translation.engine.backend, model: translation.engine.model },
      speech: synth && speechModels.length > 0 ? { engine: synth.engine, models: speechModels } : null,
    });
    const videoSec = await stage("render_video", () => stages.renderVideo(run, source, tags), details.renderDetails(durationSec));
    const artifacts = await stage(
      "upload_artifacts",
      () => stages.uploadArtifacts(run),
      (r) => ({ ...r.keys, bytes: r.bytes }),
    );

    const segments = dubbedSegments(speakers, voiceOf, fitted, options.tts.enabled);
    const used = {
      translation: translation.engine,
      diarization: labelled ? labelled.record : diarizer ? { engine: diarizer.engine, model: diarizer.model } : null,
      speech: synth ? { engine: synth.engine, model: synth.model } : null,
      separation: { engine: separator.engine, method: separator.method },
    };
    const parts = { translationId: input.translationId, artifacts: artifacts.keys, voices, segments, engines: used, loudness, timing };
    const save = dubbingSave(parts, { videoSec, sourceSec: durationSec });
    await report.stage(
      "save_dubbing",
      () => stages.saveDubbing(run, save),
      (r) => ({ dubbingId: r.dubbingId }),
    );
    return DubbingResultSchema.parse(dubbingResult(input, translation.segments, segments.length, videoSec));
  };
}

export const dubbingHandler = createDubbingHandler();
