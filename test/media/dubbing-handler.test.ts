import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { redactUrl, type PresignedGrant } from "../../contracts/presigned";
import type { S3Client } from "../../contracts/s3-client";
import type { z } from "zod";
import { dubStep, DubbingStoredSchema, type DubbingSave, type TranscriptSpeakersSchema } from "../../contracts/services/dubbing";
import type { TranslationSave } from "../../contracts/services/translation";
import { stepSpec } from "../../contracts/services/types";
import { ApertiumCliEngine } from "../../gpu-runner/engines/translation/apertium-cli";
import { createSynthesisEngine } from "../../gpu-runner/engines/synthesis/factory";
import type { SynthesizeRequest } from "../../gpu-runner/engines/synthesis/interface";
import { probe } from "../../gpu-runner/media/ffmpeg";
import { defaultSynthesisEngine, type MakeSynthesisEngine } from "../../gpu-runner/services/shared/synthesis";
import { createDubbingHandler } from "../../gpu-runner/services/dubbing/handler";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { twoVoiceVideo, type DubbingSource } from "../support/dubbing-fixtures";
import { FakePlatform } from "../support/fake-platform";
import { localS3Client, makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import { presign } from "../support/presign";
import { frameLevels, SILENCE_DBFS, TOLERANCE_SEC } from "../support/redacted-speech";
import { toPcm16 } from "../support/synthetic-speech";

/**
 * The dubbing runner step on real media and real engines (Apertium, Silero VAD + MFCC diarization,
 * eSpeak NG voice profiles, rubberband, ffmpeg) against a fake platform and a local S3: the
 * two-voice conversation dubbed into Spanish.
 */

const BUCKET = "dubbing-test";
const PREFIX = "out/txt_dub/dubbing/dub_a/";
let s3: LocalS3;
let client: S3Client;
let src: DubbingSource;
let ctx: TestContext | undefined;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = localS3Client(s3);
  src = await twoVoiceVideo();
  await client.putObject(BUCKET, "src/talk.mp4", await readFile(src.video), "video/mp4");
}, 120_000);
afterAll(async () => s3?.close());
afterEach(async () => {
  await ctx?.dispose();
  ctx = undefined;
});

interface RunOptions {
  cloning?: boolean;
  tts?: boolean;
  diarization?: boolean;
  assigned?: Record<string, { voiceId: string; spec: unknown; referenceKey: null }>;
  /** An s3_presigned job: no bucket, its files to these URLs (the artifacts' names, srt and vtt). */
  presigned?: PresignedGrant;
  /** Voices the workspace's plan still allows dubbing to make (default: no limit); `voices.create` refuses the rest. */
  voicesLeft?: number;
  /** What `dubbing.speakers` answers: the source transcript's own speakers (default: not diarized). */
  transcriptSpeakers?: z.input<typeof TranscriptSpeakersSchema>;
  /** What `translation.source` answers (default: the two-voice transcript). */
  source?: DubbingSource["transcript"];
  /** What replaces a redacted transcript's words (default: silence). */
  redactedAudio?: "silence" | "tone";
  /** Sees every request the synthesis engine is given. */
  onSynthesize?: (req: SynthesizeRequest) => void;
}

async function dub(o: RunOptions = {}) {
  const platform = new FakePlatform({});
  let voices = 0;
  platform.answers = {
    "translation.source": () => o.source ?? src.transcript,
    "translation.save": (b) => ({ translationId: "trl_dub", segmentCount: (b as TranslationSave).segments.length }),
    "voices.create": () =>
      voices < (o.voicesLeft ?? Infinity)
        ? { voiceId: `vce_auto${voices++}` }
        : { voiceId: null, reason: "free plan limit reached for dubbing_voices: 20 of 20 used this billing period" },
    "dubbing.save": () => ({ dubbingId: "dub_a" }),
    "dubbing.speakers": () => o.transcriptSpeakers ?? { turns: [], speakers: [], diarization: null },
  };
  const c = await makeHandlerContext({
    input: {
      dubbingId: "dub_a",
      transcriptionId: "txt_dub",
      translationId: "trl_dub",
      sourceLanguage: "en",
      targetLanguage: "es",
      languageKey: "es",
      translation: {
        textSourceId: "txt_dub",
        translationId: "trl_dub",
        sourceLanguage: "en",
        sourceLanguageInferred: false,
        targetLanguage: "es",
        languageKey: "es",
        sourceLayer: "current",
        connectionId: o.presigned ? null : "stc_test",
        bucket: o.presigned ? null : BUCKET,
        resolvedOutputKeys: o.presigned
          ? { srt: redactUrl(o.presigned.outputUrls["srt"]!), vtt: redactUrl(o.presigned.outputUrls["vtt"]!) }
          : { srt: "out/txt_dub/transcripts/transcript.es.srt", vtt: "out/txt_dub/transcripts/transcript.es.vtt" },
        engine: { backend: "apertium", model: null, pair: "eng-spa" },
      },
      sourceLayer: "current",
      ...(o.presigned
        ? {
            sourceType: "s3_presigned",
            sourceUrl: redactUrl(o.presigned.sourceUrl!),
            outputUrls: Object.fromEntries(Object.entries(o.presigned.outputUrls).map(([name, url]) => [name, redactUrl(url)])),
          }
        : { sourceType: "s3_direct", connectionId: "stc_test", bucket: BUCKET, sourceKey: "src/talk.mp4", resolvedOutputPrefix: PREFIX }),
      options: {
        diarization: { enabled: o.diarization ?? true, minSpeakers: null, maxSpeakers: null },
        voiceAssignments: Object.fromEntries(Object.entries(o.assigned ?? {}).map(([label, v]) => [label, v.voiceId])),
        voiceCloning: { enabled: o.cloning ?? true },
        tts: { enabled: o.tts ?? true, modelId: null },
      },
      assignedVoices: o.assigned ?? {},
      engines: {
        speech: "local",
        speechModel: null,
        diarization: "local-mfcc",
        diarizationModel: null,
        mixLoudnessLufs: -16,
        duckDb: 18,
        ...(o.redactedAudio ? { redactedAudio: o.redactedAudio } : {}),
      },
    },
    storage: o.presigned ? null : storageGrant(s3, BUCKET),
    ...(o.presigned ? { presigned: o.presigned } : {}),
    platform,
    step: stepSpec("dubbing", dubStep),
    stored: DubbingStoredSchema,
  });
  ctx = c;
  const result = await createDubbingHandler({
    createTranslation: () => new ApertiumCliEngine(),
    ...(o.onSynthesize ? { createSynthesis: watchedSynthesis(o.onSynthesize) } : {}),
  })(c);
  return { result, platform, save: platform.callsOf("dubbing.save")[0] as DubbingSave, report: ctx.report };
}

/** The local synthesis engine, every request shown to `seen` first. */
const watchedSynthesis =
  (seen: (req: SynthesizeRequest) => void): MakeSynthesisEngine =>
  (choice, env) => {
    const engine = defaultSynthesisEngine(choice, env);
    return {
      engine: engine.engine,
      model: engine.model,
      languages: () => engine.languages(),
      supportsLanguage: (language) => engine.supportsLanguage(language),
      createVoice: (req) => engine.createVoice(req),
      synthesize: (req) => {
        seen(req);
        return engine.synthesize(req);
      },
    };
  };

/** An artifact's audio as 16 kHz mono samples. */
async function samplesOf(key: string): Promise<Int16Array> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "dub-samples-"));
  const file = path.join(dir, path.basename(key));
  await writeFile(file, Buffer.from(await (await client.getObject(BUCKET, key)).arrayBuffer()));
  return toPcm16(file);
}

async function probeKey(key: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "dub-probe-"));
  const file = path.join(dir, path.basename(key));
  await writeFile(file, Buffer.from(await (await client.getObject(BUCKET, key)).arrayBuffer()));
  return probe(file);
}

describe("dubbing handler: two voices into Spanish", () => {
  let full: Awaited<ReturnType<typeof dub>>;
  beforeAll(async () => {
    full = await dub();
  }, 300_000);

  it("finds the two speakers and makes each a voice profile from their own audio", () => {
    expect(full.save.speakers.map((s) => [s.label, s.status, s.voiceSource, s.voiceKind])).toEqual([
      ["SPEAKER_00", "voiced", "auto_created", "profile"],
      ["SPEAKER_01", "voiced", "auto_created", "profile"],
    ]);
    expect(full.platform.callsOf("voices.create")).toHaveLength(2);
  });

  it("gives alternating utterances to alternating speakers", () => {
    const speakers = full.save.segments.map((s) => s.speaker);
    expect(speakers.filter((s, i) => i > 0 && s === speakers[i - 1])).toHaveLength(0);
  });

  it("speaks every segment, starting within 100 ms of its source and overrunning no slot by more than 5%", () => {
    expect(full.save.segments.every((s) => s.speech === "spoken")).toBe(true);
    for (const s of full.save.segments) {
      expect(Math.abs(s.speechStart! - s.sourceStart)).toBeLessThanOrEqual(0.1);
      expect(s.speechStart! + s.speechDurationSec! - s.slotEnd).toBeLessThanOrEqual(0.05 * (s.slotEnd - s.sourceStart));
    }
    expect(full.save.sync.maxStartOffsetSec).toBeLessThanOrEqual(0.1);
    expect(full.save.sync.maxOverrunRatio).toBeLessThanOrEqual(0.05);
  });

  it("uploads six playable artifacts, the dubbed video as long as the source within 0.1 s with its picture copied", async () => {
    expect(Object.keys(full.save.artifacts).sort()).toEqual(["background", "mix", "rawAudio", "speech", "video", "vocals"]);
    for (const key of Object.values(full.save.artifacts)) {
      const info = await probeKey(key);
      expect(info.hasAudio, key).toBe(true);
    }
    const video = await probeKey(full.save.artifacts.video!);
    expect(video.hasVideo).toBe(true);
    expect(Math.abs(video.durationSec - (await probe(src.video)).durationSec)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(full.save.sync.durationDeltaSec)).toBeLessThanOrEqual(0.1);
  });

  it("normalises the mix's loudness to about -16 LUFS", () => {
    expect(full.save.loudness.integratedLufs).toBeGreaterThan(-17.5);
    expect(full.save.loudness.integratedLufs).toBeLessThan(-14.5);
  });

  it("translates first and saves the translation, keeping every segment's timing", () => {
    const saved = full.platform.callsOf("translation.save")[0] as TranslationSave;
    expect(saved.segments.map((s) => s.start)).toEqual(src.transcript.segments.map((s) => s.start));
    expect(saved.segments[0]!.text).toMatch(/^Buenos días/);
  });

  it("records what made each part, honestly", () => {
    expect(full.save.engines).toMatchObject({
      translation: { backend: "apertium", model: "apertium:eng-spa" },
      diarization: { engine: "local-mfcc", model: "silero-vad-v5+mfcc-pitch-ahc" },
      speech: { engine: "local" },
      separation: { engine: "ffmpeg-filters" },
    });
  });

  it("returns the spec's resultSummary", () => {
    expect(full.result).toMatchObject({
      dubbingId: "dub_a",
      transcriptionId: "txt_dub",
      translationId: "trl_dub",
      sourceLanguage: "en",
      targetLanguage: "es",
      languageKey: "es",
      segmentCount: src.transcript.segments.length,
    });
    expect(String(full.result["textPreview"]).length).toBeLessThanOrEqual(100);
  });
});

describe("dubbing handler: a redacted transcript", () => {
  let run: Awaited<ReturnType<typeof dub>>;
  let span: { type: "PERSON"; start: number; end: number };
  const spoken: string[] = [];

  beforeAll(async () => {
    // The second utterance's first second is a redacted name; the third utterance's text carries its placeholder.
    const second = src.transcript.segments[1]!;
    span = { type: "PERSON", start: second.start, end: Math.min(second.end, second.start + 1) };
    const segments = src.transcript.segments.map((s, i) => (i === 2 ? { ...s, text: `[PERSON] ${s.text}` } : s));
    run = await dub({
      diarization: false,
      transcriptSpeakers: { turns: [], speakers: [], diarization: null, redactedSpans: [span] },
      source: { ...src.transcript, segments },
      onSynthesize: (req) => spoken.push(req.text),
    });
  }, 300_000);

  it.each(["rawAudio", "vocals", "background"] as const)(
    "keeps no redacted word's audio in %s: silent over the span within 50 ms of its timing",
    async (artifact) => {
      const levels = frameLevels(await samplesOf(run.save.artifacts[artifact]!), 0.01);
      const inside = levels.slice(Math.ceil((span.start + TOLERANCE_SEC) * 100), Math.floor((span.end - TOLERANCE_SEC) * 100));
      expect(inside.length).toBeGreaterThan(50);
      expect(Math.max(...inside)).toBeLessThan(SILENCE_DBFS);
    },
  );

  it("says in extract_audio how many spans it silenced", () => {
    expect(run.report.eventsOf("extract_audio").at(-1)?.details).toMatchObject({ redactedSpans: 1, redactedAudio: "silence" });
  });

  it("never gives the voice a placeholder to read", () => {
    // The translation kept the placeholder (Apertium writes `[Persona]`): the voice must not read it.
    const saved = run.platform.callsOf("translation.save")[0] as TranslationSave;
    expect(saved.segments[2]!.text).toMatch(/^\[\w+\]/);
    expect(spoken.length).toBeGreaterThan(0);
    for (const text of spoken) expect(text).not.toMatch(/\[|\]|PERSON/i);
  });
});

describe("dubbing handler: a redacted transcript, toned", () => {
  let run: Awaited<ReturnType<typeof dub>>;
  let span: { type: "PERSON"; start: number; end: number };
  const spoken: string[] = [];

  beforeAll(async () => {
    const second = src.transcript.segments[1]!;
    span = { type: "PERSON", start: second.start, end: Math.min(second.end, second.start + 1) };
    const segments = src.transcript.segments.map((s, i) => (i === 2 ? { ...s, text: `[PERSON] ${s.text}` } : s));
    run = await dub({
      diarization: false,
      redactedAudio: "tone",
      transcriptSpeakers: { turns: [], speakers: [], diarization: null, redactedSpans: [span] },
      source: { ...src.transcript, segments },
      onSynthesize: (req) => spoken.push(req.text),
    });
  }, 300_000);

  it("bleeps in the dubbed speech where the placeholder was, and never reads it", async () => {
    for (const text of spoken) expect(text).not.toMatch(/\[|\]|PERSON/i);
    // The third segment's text starts with the placeholder: its speech starts with the bleep.
    const at = Math.round(src.transcript.segments[2]!.start * 16_000);
    expectTone((await samplesOf(run.save.artifacts.speech!)).subarray(at + 800, at + 3200));
  });

  it("bleeps over the redacted span in the source audio it keeps", async () => {
    const raw = await samplesOf(run.save.artifacts.rawAudio!);
    expectTone(raw.subarray(Math.round((span.start + TOLERANCE_SEC) * 16_000), Math.round((span.end - TOLERANCE_SEC) * 16_000)));
  });
});

/** A 1 kHz tone: two zero crossings a millisecond, at a steady level. */
function expectTone(samples: Int16Array): void {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  expect(crossings / (samples.length / 16)).toBeCloseTo(2, 1);
  const levels = frameLevels(samples, 0.01);
  expect(Math.min(...levels)).toBeGreaterThan(-40);
}

describe("dubbing handler: voices", () => {
  it("with cloning off and no assignment, every speaker needs a manual assignment and stays silent", async () => {
    const { save, platform } = await dub({ cloning: false });
    expect(save.speakers.every((s) => s.status === "needs_manual_assignment")).toBe(true);
    expect(save.segments.every((s) => s.speech === "no_voice" && s.speechStart === null)).toBe(true);
    expect(platform.callsOf("voices.create")).toHaveLength(0);
  }, 300_000);

  it("an assigned voice speaks for its speaker; only the other gets a voice made", async () => {
    const engine = createSynthesisEngine("local", {});
    const dir = await mkdtemp(path.join(os.tmpdir(), "dub-voice-"));
    const spec = await engine.createVoice({
      sampleWavPath: (await twoVoiceVideo()).video,
      language: "es",
      referenceOutPath: path.join(dir, "ref.wav"),
      signal: AbortSignal.timeout(60_000),
    });
    const { save, platform } = await dub({ assigned: { SPEAKER_01: { voiceId: "vce_given", spec, referenceKey: null } } });
    expect(save.speakers.find((s) => s.label === "SPEAKER_01")).toMatchObject({ voiceId: "vce_given", voiceSource: "assigned" });
    expect(save.speakers.find((s) => s.label === "SPEAKER_00")).toMatchObject({ voiceSource: "auto_created" });
    expect(platform.callsOf("voices.create")).toEqual([expect.objectContaining({ label: "SPEAKER_00" })]);
  }, 300_000);

  it("when the plan allows no more voices made by dubbing, speakers are left for manual assignment saying so, and no more are asked for", async () => {
    const { save, platform } = await dub({ voicesLeft: 0 });
    expect(save.speakers.map((s) => [s.label, s.status, s.voiceId])).toEqual([
      ["SPEAKER_00", "needs_manual_assignment", null],
      ["SPEAKER_01", "needs_manual_assignment", null],
    ]);
    expect(save.speakers.every((s) => s.reason?.startsWith("free plan limit reached for dubbing_voices"))).toBe(true);
    expect(save.segments.every((s) => s.speech === "no_voice")).toBe(true);
    expect(platform.callsOf("voices.create")).toHaveLength(1);
  }, 300_000);

  it("a diarized transcript's own labels key the voices: its turns are used and no engine diarizes again", async () => {
    // Labels the audio would not give (the transcript's person split the second voice in two): only the transcript could.
    const label = (i: number) => (i % 2 === 0 ? "SPEAKER_00" : i % 4 === 1 ? "SPEAKER_01" : "SPEAKER_02");
    const turns = src.transcript.segments.map((seg, i) => ({ start: seg.start, end: seg.end, speaker: label(i) }));
    const record = { engine: "local-mfcc", model: "from-the-transcript" };
    const { save, report } = await dub({
      cloning: false,
      transcriptSpeakers: { turns, speakers: [{ label: "SPEAKER_00", name: "Ada" }], diarization: record },
    });
    expect(save.segments.map((x) => x.speaker)).toEqual(src.transcript.segments.map((_, i) => label(i)));
    expect(save.speakers.map((x) => x.label)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_02"]);
    expect(report.eventsOf("diarize").at(-1)?.details).toMatchObject({ source: "transcript", turns: turns.length });
    expect(save.engines.diarization).toEqual(record);
  }, 300_000);

  it("with diarization off, one speaker speaks every segment", async () => {
    const { save, report } = await dub({ diarization: false });
    expect(save.speakers.map((s) => s.label)).toEqual(["SPEAKER_00"]);
    expect(report.eventsOf("diarize")[0]?.event).toBe("skipped");
  }, 300_000);
});

describe("dubbing handler: an s3_presigned job", () => {
  it("reads the video through its URL and writes each artifact and the subtitles to the URL of its name", async () => {
    const names = ["rawAudio", "vocals", "background", "speech", "mix", "video", "srt", "vtt"];
    const urls = await Promise.all(names.map(async (n) => [n, await presign(s3, "PUT", BUCKET, `presigned/${n}`)] as const));
    const presigned = { sourceUrl: await presign(s3, "GET", BUCKET, "src/talk.mp4"), outputUrls: Object.fromEntries(urls) };
    const { save } = await dub({ tts: false, presigned });
    expect(save.artifacts).toEqual(Object.fromEntries(urls.filter(([n]) => n !== "srt" && n !== "vtt").map(([n, u]) => [n, redactUrl(u)])));
    expect((await probeKey("presigned/video")).durationSec).toBeCloseTo(src.durationSec, 0);
    expect(await (await client.getObject(BUCKET, "presigned/vtt")).text()).toMatch(/^WEBVTT/);
  }, 300_000);
});
