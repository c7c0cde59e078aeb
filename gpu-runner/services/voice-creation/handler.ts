import { join } from "node:path";
import { z } from "zod";
import { MIN_VOICE_SAMPLE_SPEECH_SEC, type createVoiceStep } from "../../../contracts/services/voice-creation";
import type { StageOf } from "../../../contracts/services/types";
import type { CreatedVoice } from "../../../contracts/voices";
import type { EngineEnv } from "../../engines/config";
import { extractAudio } from "../../media/ffmpeg";
import { openSource } from "../../media/source";
import { StepFailure } from "../../../contracts/step-failure";
import type { StepHandler } from "../../handler";
import { SOURCE } from "../../object-store";
import { toolStep } from "../../objects";
import { parseStepInput, parseStepSettings, round3 } from "../../step-input";
import { defaultSynthesisEngine, type MakeSynthesisEngine } from "../shared/synthesis";

/**
 * Voice creation on the runner: the sample is downloaded, its sound extracted (16 kHz mono), and the
 * speech engine makes a voice of it: a local engine measures the speaker (median F0, syllable rate)
 * and matches a stock voice's pitch and rate to them (a voice profile, recorded as such); a hosted
 * cloning engine cuts a reference clip of the speaker, which is kept in the bucket beside the voice.
 */
type Stage = StageOf<typeof createVoiceStep>;

const InputSchema = z.object({
  voiceId: z.string().min(1),
  // A bucket job's; an s3_presigned job has its URLs in the task's presigned grant instead.
  bucket: z.string().min(1).optional(),
  sourceKey: z.string().min(1).optional(),
  language: z.string().min(1),
  startSec: z.number().nonnegative().optional(),
  endSec: z.number().positive().optional(),
  outputPrefix: z.string().min(1).optional(),
});

/** The presigned output a cloning engine's reference clip goes to, when the request gave one. */
const REFERENCE = "reference";

export interface VoiceCreationDeps {
  createEngine?: MakeSynthesisEngine;
  env?: EngineEnv;
}

export function createVoiceCreationHandler(deps: VoiceCreationDeps = {}): StepHandler<Stage> {
  const makeEngine = deps.createEngine ?? defaultSynthesisEngine;
  return async (ctx) => {
    const { report, signal, task, workDir } = ctx;
    const input = parseStepInput(InputSchema, task.input, "voice creation input");
    const { dubbing: settings, runner } = parseStepSettings(task.settings, ["dubbing", "runner"]);
    const objects = await ctx.openObjects({ [SOURCE]: input.sourceKey ?? "" });
    const source = join(workDir, "sample");
    await report.stage(
      "download",
      () => objects.download(SOURCE, source, signal),
      (bytes) => ({ bytes, ...(input.sourceKey ? { sourceKey: input.sourceKey } : {}) }),
    );
    const wav = join(workDir, "sample.wav");
    await report.stage(
      "extract_audio",
      () =>
        toolStep(signal, async () => {
          const sample = await openSource(source, { kind: "any", limits: runner, signal });
          if (!sample.hasAudio) throw new StepFailure("unsupported_media", "the sample has no audio stream to make a voice from", false);
          await extractAudio(sample, wav, signal);
          return sample;
        }),
      (sample) => ({ sampleRate: 16000, durationSec: round3(sample.durationSec), format: sample.format }),
    );

    const engine = makeEngine({ engine: settings.speechEngine, model: settings.speechModel }, deps.env ?? process.env);
    if (!engine.supportsLanguage(input.language))
      throw new StepFailure("unsupported_language", `the ${engine.engine} speech engine cannot speak ${input.language}`, false);
    const referencePath = join(workDir, "reference.wav");
    const ranges =
      input.startSec !== undefined || input.endSec !== undefined
        ? [{ start: input.startSec ?? 0, end: input.endSec ?? Number.MAX_SAFE_INTEGER }]
        : undefined;
    const spec = await report.stage(
      "create_voice",
      async () => {
        const voice = await engine.createVoice({
          sampleWavPath: wav,
          language: input.language,
          ...(ranges ? { ranges } : {}),
          referenceOutPath: referencePath,
          signal,
        });
        const speechSec = voice.matchedTo?.speechSec ?? 0;
        if (speechSec < MIN_VOICE_SAMPLE_SPEECH_SEC)
          throw new StepFailure(
            "no_speech",
            `the sample holds ${round3(speechSec)} s of speech; a voice needs at least ${MIN_VOICE_SAMPLE_SPEECH_SEC} s`,
            false,
          );
        return voice;
      },
      (v) => ({
        kind: v.kind,
        engine: v.engine,
        language: v.language,
        speechSec: v.matchedTo?.speechSec ?? null,
        f0MedianHz: v.matchedTo?.f0MedianHz ?? null,
      }),
    );

    let referenceKey: string | null = null;
    // A bucket job names the clip by key; a presigned one writes it to its `reference` URL, if it gave one.
    const referenceName = task.presigned
      ? Object.hasOwn(task.presigned.outputUrls, REFERENCE)
        ? REFERENCE
        : null
      : `${input.outputPrefix}reference.wav`;
    if (spec.kind === "clone" && referenceName) {
      referenceKey = await report.stage(
        "upload_reference",
        () => objects.upload(referenceName, { path: referencePath }, "audio/wav"),
        (key) => ({ referenceKey: key }),
      );
    } else {
      await report.skip(
        "upload_reference",
        spec.kind === "clone"
          ? "the request gave no outputUrls.reference: the reference clip is not kept"
          : "a voice profile keeps no reference clip",
      );
    }
    const created: CreatedVoice & { voiceId: string } = {
      voiceId: input.voiceId,
      spec,
      model: engine.model,
      referenceKey,
      sampleSpeechSec: round3(spec.matchedTo?.speechSec ?? 0),
    };
    return created;
  };
}

export const voiceCreationHandler = createVoiceCreationHandler();
