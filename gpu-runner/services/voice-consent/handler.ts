import { join } from "node:path";
import type { checkConsentStep } from "../../../contracts/services/voice-consent";
import { StepFailure } from "../../../contracts/step-failure";
import type { EngineEnv } from "../../engines/config";
import { readPcm16Wav } from "../../engines/diarization/pcm";
import { compareVoices, speechIn } from "../../engines/diarization/voice-match";
import { createSpeechEngine } from "../../engines/speech/factory";
import type { SpeechEngine } from "../../engines/speech/interface";
import { compressChunk, extractAudio } from "../../media/ffmpeg";
import { openSource } from "../../media/source";
import { SOURCE } from "../../object-store";
import { toolStep } from "../../objects";
import { parseStepSettings, round3 } from "../../step-input";
import type { ServiceStepHandler } from "../types";
import { decide } from "./check";

/**
 * The check of a recorded consent on the runner: the recording and the subject's media are
 * downloaded and their sound extracted (16 kHz mono); the platform's speech engine transcribes the
 * recording (told the phrase's words, as a glossary is), and the words heard are compared with the
 * phrase's challenge words; the diarizer's voice features of the recording are compared with the
 * subject's (the speaker's turns in the source, or the whole sample). The job completes with the
 * decision either way (check.ts); only a failure to measure fails it.
 */
export interface VoiceConsentDeps {
  createSpeech?: (settings: Parameters<typeof createSpeechEngine>[0], env: EngineEnv) => SpeechEngine;
  env?: EngineEnv;
}

const SUBJECT = "subject";

export function createVoiceConsentHandler(deps: VoiceConsentDeps = {}): ServiceStepHandler<"voice_consent", typeof checkConsentStep> {
  return async (ctx) => {
    const { report, task, input, signal, workDir } = ctx;
    const { runner, transcription } = parseStepSettings(task.settings, ["runner", "transcription"]);
    const objects = await ctx.openObjects({ [SOURCE]: input.sourceKey, [SUBJECT]: input.subject.sourceKey });
    const paths = {
      recording: join(workDir, "recording"),
      subject: join(workDir, "subject"),
      recordingWav: join(workDir, "recording.wav"),
      subjectWav: join(workDir, "subject.wav"),
    };
    await report.stage(
      "download",
      async () => (await objects.download(SOURCE, paths.recording, signal)) + (await objects.download(SUBJECT, paths.subject, signal)),
      (bytes) => ({ bytes }),
    );
    await report.stage(
      "extract_audio",
      () =>
        toolStep(signal, async () => {
          let seconds = 0;
          for (const [from, to] of [
            [paths.recording, paths.recordingWav],
            [paths.subject, paths.subjectWav],
          ] as const) {
            const media = await openSource(from, { kind: "any", limits: runner, signal });
            if (!media.hasAudio)
              throw new StepFailure(
                "unsupported_media",
                `the ${from === paths.recording ? "recording" : "subject's media"} has no audio`,
                false,
              );
            await extractAudio(media, to, signal);
            seconds += media.durationSec;
          }
          return seconds;
        }),
      (sec) => ({ durationSec: round3(sec) }),
    );

    const speech = (deps.createSpeech ?? ((s, env) => createSpeechEngine(s, env)))(transcription, deps.env ?? process.env);
    if (!speech.supportsLanguage(input.language))
      throw new StepFailure("unsupported_language", `the ${speech.engine} speech engine does not recognise ${input.language}`, false);
    const heard = await report.stage(
      "recognise_phrase",
      async () => {
        const audio = speech.inputFormat === "wav" ? paths.recordingWav : join(workDir, `recording.${speech.inputFormat}`);
        if (audio !== paths.recordingWav)
          await compressChunk(paths.recordingWav, audio, speech.inputFormat === "wav" ? "mp3" : speech.inputFormat, signal);
        const vocabulary = [...input.phrase.words, ...(input.phrase.speakerName ? [input.phrase.speakerName] : [])];
        const t = await speech.transcribe(audio, { language: input.language, signal, vocabulary, workDir });
        return t.words.map((w) => w.word).join(" ");
      },
      (text) => ({ engine: speech.engine, words: text.split(" ").filter(Boolean).length }),
    );
    const voice = await report.stage(
      "compare_voice",
      async () => {
        const recording = await readPcm16Wav(paths.recordingWav);
        const subject = await readPcm16Wav(paths.subjectWav);
        const turns = input.subject.kind === "speaker" ? input.subject.turns : undefined;
        return compareVoices(
          { pcm: recording, regions: await speechIn(recording, signal) },
          { pcm: subject, regions: await speechIn(subject, signal, turns) },
          signal,
        );
      },
      (v) => ({
        distance: v.distance === null ? null : round3(v.distance),
        recordingWindows: v.recordingWindows,
        subjectWindows: v.subjectWindows,
      }),
    );
    return decide(input, heard, voice, { engine: speech.engine, model: speech.model });
  };
}

export const voiceConsentHandler = createVoiceConsentHandler();
