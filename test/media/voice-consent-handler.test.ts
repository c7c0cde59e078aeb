import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { S3Client } from "../../contracts/s3-client";
import {
  checkConsentStep,
  VoiceConsentResultSchema,
  VoiceConsentStoredSchema,
  type VoiceConsentResult,
} from "../../contracts/services/voice-consent";
import { stepSpec } from "../../contracts/services/types";
import { MAX_VOICE_DISTANCE, MIN_WORD_RECALL, phraseText } from "../../contracts/voice-consent";
import { createVoiceConsentHandler } from "../../gpu-runner/services/voice-consent/handler";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { localS3Client, makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import { concatPcm, RATE, speak, wavBytes, type TtsVoice } from "../support/synthetic-speech";

/**
 * The voice_consent runner step on real recordings made by eSpeak NG: the subject speaker's voice in
 * a two-speaker source, and consent recordings of the phrase read by that voice (granted), by
 * another voice (refused: not the subject's), and of other words by the subject's voice (refused:
 * the phrase not heard). Prints what it measured beside the thresholds.
 */
const run = promisify(execFile);
const BUCKET = "consent-test";
const SUBJECT: TtsVoice = { engine: "espeak-ng", voice: "en-us+klatt2" };
const OTHER: TtsVoice = { engine: "espeak-ng", voice: "en-us+klatt4" };
const GUEST: TtsVoice = { engine: "espeak-ng", voice: "en+f3" };
const WORDS = ["garden", "falcon", "marble", "crystal", "ticket", "river"];
const PHRASE = phraseText(WORDS, "Ada Lovelace");
const SOURCE_LINES: readonly [TtsVoice, string][] = [
  [SUBJECT, "Today we are looking at a chart of the northern coast drawn by hand."],
  [GUEST, "How long did that survey take them, from start to finish?"],
  [SUBJECT, "Almost three years, because the winter storms stopped the work for months at a time."],
  [GUEST, "And yet the harbours they drew are still in the right places today."],
  [SUBJECT, "That is the remarkable part, and it is why sailors trusted these charts."],
];

let s3: LocalS3;
let client: S3Client;
let scratch: string;
let ctx: TestContext | undefined;
/** SPEAKER_00's turns in the source (seconds). */
const turns: { start: number; end: number }[] = [];
const measured: Record<string, VoiceConsentResult["check"]> = {};

/** eSpeak NG at 140 words a minute (a speaker reading slowly and clearly), with half a second of room either side. */
async function recording(voice: TtsVoice, text: string, name: string) {
  const raw = path.join(scratch, `${name}.raw.wav`);
  const out = path.join(scratch, `${name}.wav`);
  await run("espeak-ng", ["-v", voice.voice, "-s", "140", "-w", raw, text]);
  await run("ffmpeg", ["-v", "error", "-y", "-i", raw, "-af", "adelay=500,apad=pad_dur=0.5", "-ac", "1", "-ar", String(RATE), out]);
  return readFile(out);
}

async function sourceWav() {
  const gap = new Int16Array(Math.round(0.6 * RATE));
  const parts: Int16Array[] = [gap];
  let at = gap.length;
  for (const [i, [voice, text]] of SOURCE_LINES.entries()) {
    const pcm = await speak(voice, text, scratch, `line-${i}`);
    if (voice === SUBJECT) turns.push({ start: at / RATE, end: (at + pcm.length) / RATE });
    parts.push(pcm, gap);
    at += pcm.length + gap.length;
  }
  const file = path.join(scratch, "source.wav");
  await writeFile(file, wavBytes(concatPcm(parts)));
  return readFile(file);
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "consent-test-"));
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = localS3Client(s3);
  await client.putObject(BUCKET, "media/talk.wav", await sourceWav(), "audio/wav");
  await client.putObject(BUCKET, "consent/subject.wav", await recording(SUBJECT, PHRASE, "subject"), "audio/wav");
  await client.putObject(BUCKET, "consent/other-voice.wav", await recording(OTHER, PHRASE, "other"), "audio/wav");
  const wrong = phraseText(["apple", "rabbit", "pencil", "guitar", "rocket", "zebra"], "Ada Lovelace");
  await client.putObject(BUCKET, "consent/wrong-words.wav", await recording(SUBJECT, wrong, "wrong"), "audio/wav");
}, 120_000);
afterAll(async () => {
  console.log(
    `voice consent checks (thresholds: word recall ≥ ${MIN_WORD_RECALL}, voice distance ≤ ${MAX_VOICE_DISTANCE}):\n` +
      Object.entries(measured)
        .map(
          ([name, c]) =>
            `  ${name.padEnd(12)} recall ${c.wordRecall.toFixed(3)}  distance ${c.voiceDistance?.toFixed(3) ?? "-"}  heard "${c.heard}"`,
        )
        .join("\n"),
  );
  await s3?.close();
  await rm(scratch, { recursive: true, force: true });
});
afterEach(async () => {
  await ctx?.dispose();
  ctx = undefined;
});

async function check(name: string, key: string): Promise<VoiceConsentResult> {
  const c = await makeHandlerContext({
    input: {
      consentId: "vcn_test",
      connectionId: "stc_test",
      bucket: BUCKET,
      sourceKey: key,
      phrase: { phraseId: "vcp_test", text: PHRASE, words: WORDS, speakerName: "Ada Lovelace" },
      subject: { kind: "speaker", transcriptionId: "txt_test", speakerLabel: "SPEAKER_00", sourceKey: "media/talk.wav", turns },
      language: "en",
      thresholds: { minWordRecall: MIN_WORD_RECALL, maxVoiceDistance: MAX_VOICE_DISTANCE },
    },
    storage: storageGrant(s3, BUCKET),
    settings: { transcription: { speechEngine: "local-pocketsphinx" } },
    step: stepSpec("voice_consent", checkConsentStep),
    stored: VoiceConsentStoredSchema,
  });
  ctx = c;
  const result = VoiceConsentResultSchema.parse(await createVoiceConsentHandler()(c));
  measured[name] = result.check;
  return result;
}

describe("voice consent check", () => {
  it("grants a recording of the subject's voice reading the phrase", async () => {
    const r = await check("subject", "consent/subject.wav");
    expect(r.decision, r.reason).toBe("granted");
    expect(r.check.wordRecall).toBeGreaterThanOrEqual(MIN_WORD_RECALL);
    expect(r.check.voiceDistance).toBeLessThanOrEqual(MAX_VOICE_DISTANCE);
  });

  it("refuses the phrase read by another voice: not the subject's", async () => {
    const r = await check("other voice", "consent/other-voice.wav");
    expect(r.decision).toBe("refused");
    expect(r.check.voiceDistance).toBeGreaterThan(MAX_VOICE_DISTANCE);
    expect(r.reason).toContain("not the subject's voice");
  });

  it("refuses the subject's voice reading other words: the phrase not heard", async () => {
    const r = await check("wrong words", "consent/wrong-words.wav");
    expect(r.decision).toBe("refused");
    expect(r.check.wordRecall).toBeLessThan(MIN_WORD_RECALL);
    expect(r.reason).toContain("phrase not heard");
  });

  it("reports its four stages in order", async () => {
    await check("subject", "consent/subject.wav");
    expect(ctx!.report.timeline()).toEqual([
      "download:started",
      "download:completed",
      "extract_audio:started",
      "extract_audio:completed",
      "recognise_phrase:started",
      "recognise_phrase:completed",
      "compare_voice:started",
      "compare_voice:completed",
    ]);
  });
});
