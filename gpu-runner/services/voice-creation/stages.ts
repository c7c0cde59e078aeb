import { join } from "node:path";
import { MIN_VOICE_SAMPLE_SPEECH_SEC, type VoiceCreationStored } from "../../../contracts/services/voice-creation";
import { StepFailure } from "../../../contracts/step-failure";
import type { Settings } from "../../../contracts/settings";
import type { SynthesisEngine, VoiceSpec } from "../../engines/synthesis/interface";
import type { ConsentAwareSynthesis } from "../shared/consent-voices";
import { extractAudio } from "../../media/ffmpeg";
import { openSource, type AcceptedSource } from "../../media/source";
import { SOURCE, type ObjectStore } from "../../object-store";
import { toolStep } from "../../objects";
import { round3 } from "../../step-input";

/**
 * The voice_creation step's stages, one function each, over the run they share: the sample
 * downloaded, its sound extracted, a voice made of it, a clone's reference clip kept.
 */
export interface VoiceCreationRun {
  input: VoiceCreationStored;
  objects: ObjectStore;
  signal: AbortSignal;
  /** The downloaded sample, its 16 kHz mono WAV, and the reference clip a cloning engine cuts. */
  paths: { sample: string; wav: string; reference: string };
}

/** A bucket job's sample key; an s3_presigned job reads its GET URL instead. */
export const sampleKey = (input: VoiceCreationStored): string | undefined =>
  input.sourceType === "s3_presigned" ? undefined : input.sourceKey;

export async function openVoiceCreationRun(ctx: {
  input: VoiceCreationStored;
  signal: AbortSignal;
  workDir: string;
  openObjects(keys: Record<string, string>): Promise<ObjectStore>;
}): Promise<VoiceCreationRun> {
  const { input, signal, workDir } = ctx;
  const objects = await ctx.openObjects({ [SOURCE]: sampleKey(input) ?? "" });
  const paths = { sample: join(workDir, "sample"), wav: join(workDir, "sample.wav"), reference: join(workDir, "reference.wav") };
  return { input, objects, signal, paths };
}

export const download = (run: VoiceCreationRun): Promise<number> => run.objects.download(SOURCE, run.paths.sample, run.signal);

export const extractSample = (run: VoiceCreationRun, limits: Settings["runner"]): Promise<AcceptedSource> =>
  toolStep(run.signal, async () => {
    const sample = await openSource(run.paths.sample, { kind: "any", limits, signal: run.signal });
    if (!sample.hasAudio) throw new StepFailure("unsupported_media", "the sample has no audio stream to make a voice from", false);
    await extractAudio(sample, run.paths.wav, run.signal);
    return sample;
  });

/** The engine must speak the voice's language before a voice is made for it. */
export function requireLanguage(engine: SynthesisEngine, language: string): void {
  if (!engine.supportsLanguage(language))
    throw new StepFailure("unsupported_language", `the ${engine.engine} speech engine cannot speak ${language}`, false);
}

export async function createVoice(run: VoiceCreationRun, engine: ConsentAwareSynthesis, profileOnly = false): Promise<VoiceSpec> {
  const { input } = run;
  const ranges =
    input.startSec !== undefined || input.endSec !== undefined
      ? [{ start: input.startSec ?? 0, end: input.endSec ?? Number.MAX_SAFE_INTEGER }]
      : undefined;
  const request = {
    sampleWavPath: run.paths.wav,
    language: input.language,
    ...(ranges ? { ranges } : {}),
    referenceOutPath: run.paths.reference,
    signal: run.signal,
  };
  const voice = profileOnly ? await engine.createProfile(request) : await engine.createVoice(request);
  const speechSec = voice.matchedTo?.speechSec ?? 0;
  if (speechSec < MIN_VOICE_SAMPLE_SPEECH_SEC)
    throw new StepFailure(
      "no_speech",
      `the sample holds ${round3(speechSec)} s of speech; a voice needs at least ${MIN_VOICE_SAMPLE_SPEECH_SEC} s`,
      false,
    );
  return voice;
}

/** The presigned output a cloning engine's reference clip goes to, when the request gave one. */
const REFERENCE = "reference";

/**
 * Where the reference clip goes: a bucket job names it by key; a presigned one writes it to its
 * `reference` URL, if it gave one (null: the clip is not kept).
 */
export function referenceName(run: VoiceCreationRun, presignedOutputs: Readonly<Record<string, string>> | null): string | null {
  if (presignedOutputs) return Object.hasOwn(presignedOutputs, REFERENCE) ? REFERENCE : null;
  return run.input.sourceType === "s3_presigned" ? null : `${run.input.outputPrefix}reference.wav`;
}

export const uploadReference = (run: VoiceCreationRun, name: string): Promise<string> =>
  run.objects.upload(name, { path: run.paths.reference }, "audio/wav");
