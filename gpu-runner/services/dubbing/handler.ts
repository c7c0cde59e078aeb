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
import * as regen from "./regenerate";
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
 * With `regenerateFrom` (regenerate.ts) the previous dub's audio, separation, turns and voices are
 * read back instead of made, only segments whose speech cannot be kept (reuse.ts) are spoken, and
 * the previous speech track is spliced (splice.ts); if it cannot be used, the dub is made in full.
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
    // A regeneration's previous dub (regenerate.ts): its record now, its artifacts at extract_audio.
    const previousRecord = input.regenerateFrom ? await timed("load_previous", () => regen.loadPreviousRecord(run)) : null;
    await stage(
      "download",
      () => stages.download(run),
      (bytes) => ({ bytes }),
    );
    // Before anything reads the source's audio: a redacted transcript's words are silenced as it is extracted.
    const facts = await stages.transcriptFacts(ctx);
    const redaction = stages.audioRedaction(facts, engines.redactedAudio);
    // A regeneration reuses the previous dub's audio only when nothing is to be silenced: the spans may have changed since.
    const from = redaction ? undefined : input.regenerateFrom;
    const extracted = await stage(
      "extract_audio",
      async () =>
        from
          ? regen.reuseSourceAudio(run, runner, from, previousRecord)
          : {
              source: await stages.extractAudio(run, runner, redaction),
              previous: input.regenerateFrom
                ? { input: input.regenerateFrom, reason: "the transcript is redacted: its audio is silenced again from the source" }
                : null,
            },
      (r) => ({
        ...details.sourceDetails(r.source),
        ...(redaction ? { redactedSpans: redaction.spans.length, redactedAudio: redaction.mode } : {}),
        ...(r.previous ? { reusedFrom: regen.isReusable(r.previous) ? from?.dubbingId : null } : {}),
      }),
    );
    const { source } = extracted;
    const previous = regen.isReusable(extracted.previous) ? extracted.previous : null;
    const durationSec = source.durationSec;

    const stretches = speechStretches(translation.segments);
    const separator = separationEngine(deps, engines);
    const separationNow = { engine: separator.engine, method: separator.method, duckDb: engines.duckDb };
    const keepSeparation = previous !== null && regen.separationStands(previous, separationNow, translation.segments);
    if (keepSeparation) await report.skip("separate_audio", `background and vocals reused from ${previous.input.dubbingId}`);
    else {
      const separated = details.separateDetails(separator, stretches.length, engines.duckDb);
      await stage("separate_audio", () => stages.separateAudio(run, separator, stretches), separated);
    }

    // A diarized transcript already says who speaks: its labels (and the names people gave them) key the voices.
    const labelled = options.diarization.enabled ? stages.transcriptDiarization(facts) : null;
    // Else a regeneration keeps who spoke when in the dub it regenerates, when that dub was diarized.
    const keptTurns = options.diarization.enabled && !labelled && previous?.record.engines.diarization ? previous : null;
    const diarizer = options.diarization.enabled && !labelled && !keptTurns ? diarizationEngine(deps, engines) : null;
    const diarization = labelled
      ? await stage("diarize", async () => labelled.diarization, details.transcriptSpeakersDetails)
      : keptTurns
        ? await stage(
            "diarize",
            async () => regen.previousDiarization(keptTurns),
            details.previousSpeakersDetails(keptTurns.input.dubbingId),
          )
        : diarizer
          ? await stage(
              "diarize",
              async () => {
                if (previous) await regen.ensureAnalysis(run, source);
                return stages.diarize(run, diarizer);
              },
              details.diarizeDetails(diarizer),
            )
          : await report.skip("diarize", "diarization disabled: every segment is SPEAKER_00").then(() => NO_SPEAKERS);
    const speakers = stages.speakersOf(translation.segments, durationSec, diarization);

    const synth = options.tts.enabled ? consentAware(synthesisEngine(deps, engines), deps.env ?? process.env, deps.createProfiles) : null;
    const voices = await stage(
      "assign_voices",
      async () => {
        if (!from) return stages.assignVoices(run, synth, speakers.labels, diarization);
        // The previous dub's voices stand (same voice ids); only speakers without one go through the ordinary assignment.
        const { reused, remaining } = regen.previousVoices(from, speakers.labels, input.assignedVoices, input.voiceConsent);
        const making = synth !== null && options.voiceCloning.enabled && remaining.some((l) => !(l in input.assignedVoices));
        if (previous && making) await regen.ensureAnalysis(run, source);
        const rest = remaining.length > 0 ? await stages.assignVoices(run, synth, remaining, diarization) : [];
        return [...reused, ...rest].sort((a, b) => a.label.localeCompare(b.label));
      },
      details.voicesDetails,
    );
    const voiceOf = new Map(voices.map((v) => [v.label, v]));
    const plan = previous
      ? regen.reusePlan(previous, speakers, voiceOf, synth ? { engine: synth.engine, model: synth.model } : null)
      : null;
    // Only the segments whose speech is not kept are spoken.
    const toSpeak = plan ? { ...speakers, slots: speakers.slots.filter((s) => !plan.kept.has(s.id)) } : speakers;
    const fitted = synth
      ? await stage(
          "synthesize_speech",
          () => stages.synthesizeSpeech(run, synth, toSpeak, voiceOf),
          details.speechDetails(synth, plan?.kept.size ?? 0),
        )
      : await report.skip("synthesize_speech", "tts disabled: the dub keeps the background only").then(() => NOTHING_SPOKEN);

    const mixed = details.mixDetails(engines.mixLoudnessLufs);
    const loudness = await stage(
      "mix_audio",
      () =>
        previous && plan
          ? regen.mixSpliced(run, previous, plan, keepSeparation, speakers, fitted, durationSec)
          : stages.mixAudio(run, speakers, fitted, durationSec),
      mixed,
    );
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

    const segments = regen.withKept(dubbedSegments(speakers, voiceOf, fitted, options.tts.enabled), plan);
    const used = {
      translation: translation.engine,
      diarization: labelled
        ? labelled.record
        : keptTurns
          ? keptTurns.record.engines.diarization
          : diarizer
            ? { engine: diarizer.engine, model: diarizer.model }
            : null,
      speech: synth ? { engine: synth.engine, model: synth.model } : null,
      separation: separationNow,
    };
    const regenerated =
      from && extracted.previous
        ? regen.regeneratedRecord(extracted.previous, {
            plan,
            fitted,
            separation: keepSeparation,
            diarization: keptTurns !== null,
            voices: voices.filter((v) => from.voices[v.label]?.voiceId === v.voiceId && v.voiceId !== null).map((v) => v.label),
          })
        : undefined;
    const parts = { translationId: input.translationId, artifacts: artifacts.keys, voices, segments, engines: used, loudness, timing };
    const save = dubbingSave(parts, { videoSec, sourceSec: durationSec }, regenerated);
    await report.stage(
      "save_dubbing",
      () => stages.saveDubbing(run, save),
      (r) => ({ dubbingId: r.dubbingId }),
    );
    return DubbingResultSchema.parse(dubbingResult(input, translation.segments, segments.length, videoSec));
  };
}

export const dubbingHandler = createDubbingHandler();
