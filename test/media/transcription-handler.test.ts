import { readFile } from "node:fs/promises";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoredRedaction } from "../../contracts/services/transcription";
import { S3Client } from "../../contracts/s3-client";
import { TranscriptionResultSchema, type TranscriptionResult, type Word } from "../../contracts/transcript";
import { StepFailure } from "../../contracts/step-failure";
import type { EngineTranscript, SpeechEngine, TranscribeOptions } from "../../gpu-runner/engines/speech/interface";
import { TranscriptionStoredSchema } from "../../contracts/services/transcription";
import { NO_OUTPUTS, typedContext } from "../support/typed-context";
import { createTranscriptionHandler, type TranscriptionHandlerDeps } from "../../gpu-runner/services/transcription/handler";
import { makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { librivoxUtterances } from "../../scripts/make-sample-media";
import { wordErrorRate } from "../../gpu-runner/services/transcription/wer";
import { garbageFile, overLimitFile, speechAudioOnly, speechVideo } from "../support/media-fixtures";
import { twoVoiceSample, type Voice } from "../support/two-voice";
import type { DiarizationEngine } from "../../gpu-runner/engines/diarization/interface";

const BUCKET = "customer-media";
const OUTPUT_KEYS = {
  fullText: "out/transcripts/full.txt",
  segments: "out/transcripts/segments.json",
  srt: "out/transcripts/transcript.srt",
  vtt: "out/transcripts/transcript.vtt",
};

/** A bucket job's input as create stores it (worker/services/transcription/resolve.ts). */
function storedInput(
  sourceKey: string,
  outputKeys: Record<string, string>,
  language?: string,
  diarization?: { enabled: boolean; minSpeakers: number | null; maxSpeakers: number | null },
  languages?: string[],
  vocabulary?: string[],
  redaction?: StoredRedaction,
): Record<string, unknown> {
  return {
    textSourceId: "txt_test",
    sourceType: "s3_direct",
    connectionId: "stc_test",
    bucket: BUCKET,
    sourceKey,
    resolvedOutputPrefix: "out/transcripts/",
    resolvedOutputKeys: outputKeys,
    options: {
      ...(language ? { language } : {}),
      preprocessing: { extract: true, denoise: true, separateVocals: false },
      ...(diarization ? { diarization } : {}),
      ...(languages ? { languages } : {}),
      ...(vocabulary ? { vocabulary } : {}),
      ...(redaction ? { redaction } : {}),
    },
  };
}

/** The handler, typed for any task: the context reads its input through the contract's schema, as the runner does. */
const transcribe = (ctx: TestContext, deps: TranscriptionHandlerDeps = {}) =>
  createTranscriptionHandler(deps)(typedContext(ctx, { input: TranscriptionStoredSchema, outputs: NO_OUTPUTS }));

let s3: LocalS3;
let client: S3Client;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET], readOnlyPrefixes: [`${BUCKET}/read-only/`] });
  client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  const uploads: [string, Promise<string>][] = [
    ["src/speech.mp4", speechVideo()],
    ["src/audio-only.mp4", speechAudioOnly()],
    ["src/over-limit.mp4", overLimitFile()],
    ["src/garbage.mp4", garbageFile()],
  ];
  for (const [key, file] of uploads) await client.putObject(BUCKET, key, await readFile(await file), "video/mp4");
  await client.putObject(BUCKET, "src/two-voice.wav", await readFile((await twoVoiceSample()).wav), "audio/wav");
}, 120_000);

afterAll(async () => {
  await s3?.close();
});

/** A stand-in engine that "hears" a fixed sentence per file; records what it was given. */
class ScriptedEngine implements SpeechEngine {
  readonly engine = "scripted";
  readonly model = "scripted-1";
  readonly maxConcurrency = 8;
  readonly reducesNoise: boolean = false;
  readonly languages: readonly string[] | null;
  /** Set by a test for an engine that labels speakers itself (its answers then carry speakerTurns). */
  labelsSpeakers = false;
  readonly calls: {
    path: string;
    language: string | undefined;
    vocabulary?: readonly string[] | undefined;
    workDir?: string | undefined;
  }[] = [];

  constructor(
    readonly inputFormat: SpeechEngine["inputFormat"] = "wav",
    readonly detectsLanguage = false,
    private readonly answer: (call: number) => EngineTranscript | Error = () => ({ language: "en", words: sentence() }),
  ) {
    this.languages = detectsLanguage ? null : ["en"];
  }

  supportsLanguage(lang: string): boolean {
    return this.languages === null || this.languages.includes(lang);
  }

  async transcribe(path: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    this.calls.push({ path, language: opts.language, vocabulary: opts.vocabulary, workDir: opts.workDir });
    const a = this.answer(this.calls.length);
    if (a instanceof Error) throw a;
    return a;
  }
}

function sentence(): Word[] {
  return ["he", "was", "not", "an", "ill", "disposed", "young", "man"].map((word, i) => ({
    word,
    start: 0.5 + i * 0.3,
    end: 0.75 + i * 0.3,
    confidence: 0.9,
  }));
}

interface RunOptions {
  sourceKey?: string;
  settings?: Record<string, unknown>;
  language?: string;
  engine?: SpeechEngine;
  cores?: number;
  storage?: "valid" | "wrong-secret";
  outputKeys?: typeof OUTPUT_KEYS;
  /** The job's diarization as create stores it; absent: a job stored before transcripts had speakers. */
  diarization?: { enabled: boolean; minSpeakers: number | null; maxSpeakers: number | null };
  diarizer?: DiarizationEngine;
  /** Further handler dependencies (e.g. a diarization factory that must not be called). */
  deps?: TranscriptionHandlerDeps;
  /** The job's allowed languages (`options.language` as a list of two or more). */
  languages?: string[];
  /** The job's vocabulary as create stores it. */
  vocabulary?: string[];
  /** The job's redaction as create stores it. */
  redaction?: StoredRedaction;
}

interface RunOutcome {
  ctx: TestContext;
  result?: TranscriptionResult;
  error?: unknown;
}

async function runHandler(opts: RunOptions = {}): Promise<RunOutcome> {
  const grant = storageGrant(s3, BUCKET);
  const ctx = await makeHandlerContext({
    input: storedInput(
      opts.sourceKey ?? "src/speech.mp4",
      opts.outputKeys ?? OUTPUT_KEYS,
      opts.language,
      opts.diarization,
      opts.languages,
      opts.vocabulary,
      opts.redaction,
    ),
    storage: opts.storage === "wrong-secret" ? { ...grant, secretAccessKey: "wrong" } : grant,
    settings: { transcription: opts.settings ?? {} },
    cores: opts.cores ?? 2,
  });
  const deps: TranscriptionHandlerDeps = {
    ...(opts.engine ? { createEngine: () => opts.engine! } : {}),
    ...(opts.diarizer ? { createDiarizer: () => opts.diarizer! } : {}),
    ...opts.deps,
  };
  try {
    const result = TranscriptionResultSchema.parse(await transcribe(ctx, deps));
    return { ctx, result };
  } catch (error) {
    return { ctx, error };
  } finally {
    await ctx.dispose();
  }
}

function expectFailure(outcome: RunOutcome, code: string, retryable: boolean): StepFailure {
  expect(outcome.error).toBeInstanceOf(StepFailure);
  const f = outcome.error as StepFailure;
  expect({ code: f.code, retryable: f.retryable }).toEqual({ code, retryable });
  return f;
}

const getText = async (key: string) => (await client.getObject(BUCKET, key)).text();

describe("transcription handler with the local PocketSphinx engine", () => {
  let outcome: RunOutcome;
  let reference: string;
  beforeAll(async () => {
    reference = (await librivoxUtterances()).map((u) => u.text).join(" ");
    outcome = await runHandler();
  }, 120_000);

  it("reports every stage of the single-pass pipeline in spec order", () => {
    expect(outcome.error).toBeUndefined();
    expect(outcome.ctx.report.timeline()).toEqual([
      "download:started",
      "download:completed",
      "probe:started",
      "probe:completed",
      "extract_audio:started",
      "extract_audio:completed",
      "denoise_audio:started",
      "denoise_audio:completed",
      "separate_vocals:skipped",
      "transcribe:started",
      "transcribe_file:started",
      "transcribe_file:completed",
      "diarize:skipped",
      "transcribe:completed",
      "redact:skipped",
      "video_analysis:started",
      "video_analysis:completed",
      "upload_full_text:started",
      "upload_full_text:completed",
      "upload_segments:started",
      "upload_segments:completed",
      "upload_transcript_srt:started",
      "upload_transcript_srt:completed",
      "upload_transcript_vtt:started",
      "upload_transcript_vtt:completed",
    ]);
  });

  it("returns a transcript with the engine, model, language, duration and sensible words", () => {
    const r = outcome.result!;
    expect(r).toMatchObject({ language: "en", engine: "local-pocketsphinx", outputKeys: OUTPUT_KEYS });
    expect(r.durationSec).toBeCloseTo(28.8, 0);
    // The PocketSphinx command-line tool scores 0.27 on this audio.
    expect(wordErrorRate(reference, r.segments.map((s) => s.text).join(" ")).wer).toBeLessThan(0.32);
    expect(r.segments.map((s) => s.id)).toEqual(r.segments.map((_, i) => i));
  });

  it("finds the scene cuts of the source video as visual chunks", () => {
    const chunks = outcome.result!.visualChunks;
    expect(chunks.map((c) => Math.round(c.start))).toEqual([0, 10, 20]);
    expect(chunks[0]!.descriptors).toHaveProperty("meanLuma");
  });

  it("uploads full text, segments JSON, SRT and VTT that parse back to the transcript", async () => {
    const r = outcome.result!;
    expect(await getText(OUTPUT_KEYS.fullText)).toBe(r.segments.map((s) => s.text).join("\n") + "\n");
    expect(JSON.parse(await getText(OUTPUT_KEYS.segments))).toMatchObject({
      language: "en",
      engine: "local-pocketsphinx",
      segments: r.segments.map((s) => ({ id: s.id, text: s.text })),
    });
    const words = r.segments.map((s) => s.text).join(" ");
    for (const key of [OUTPUT_KEYS.srt, OUTPUT_KEYS.vtt]) {
      const cues = parseSync(await getText(key)).flatMap((n) => (n.type === "cue" ? [n.data] : []));
      expect(cues.length).toBeGreaterThan(0);
      expect(cues.map((c) => c.text.replace(/\n/g, " ")).join(" ")).toBe(words);
    }
  });
});

describe("transcription handler speakers (local PocketSphinx and the local diarizer on the two-voice conversation)", () => {
  const DIARIZE = { enabled: true, minSpeakers: null, maxSpeakers: null };
  let outcome: RunOutcome;
  let truth: { start: number; end: number; voice: Voice }[];
  beforeAll(async () => {
    truth = (await twoVoiceSample()).truth;
    outcome = await runHandler({ sourceKey: "src/two-voice.wav", diarization: DIARIZE });
  }, 180_000);

  /** The voice speaking at a word's centre, by the conversation's script. */
  const voiceAt = (w: Word) => truth.find((t) => (w.start + w.end) / 2 >= t.start - 0.3 && (w.start + w.end) / 2 <= t.end + 0.3)?.voice;

  it("reports diarize inside transcribe, after the words are heard", () => {
    expect(outcome.error).toBeUndefined();
    const tl = outcome.ctx.report.timeline();
    expect(tl.slice(tl.indexOf("transcribe_file:completed"), tl.indexOf("transcribe:completed") + 1)).toEqual([
      "transcribe_file:completed",
      "diarize:started",
      "diarize:completed",
      "transcribe:completed",
    ]);
  });

  it("labels every segment and word, SPEAKER_00 first, and lists two speakers with their speaking time", () => {
    const r = outcome.result!;
    expect(r.segments.every((s) => s.speaker !== undefined && s.words!.every((w) => w.speaker === s.speaker))).toBe(true);
    expect(r.segments[0]!.speaker).toBe("SPEAKER_00");
    expect(r.speakers!.map((s) => s.label)).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect(r.speakers!.every((s) => s.speakingSec > 5)).toBe(true);
    expect(r.diarization).toEqual({ engine: "local-mfcc", model: expect.any(String) as string });
  });

  it("writes the speakers into its files: SRT names them where turns start, WebVTT opens every cue with a voice span", async () => {
    const r = outcome.result!;
    const cuesOf = async (key: string) => parseSync(await getText(key)).flatMap((n) => (n.type === "cue" ? [n.data.text] : []));
    const turns = r.segments.filter((s, i) => s.speaker !== r.segments[i - 1]?.speaker).map((s) => s.speaker);
    const srt = await cuesOf(OUTPUT_KEYS.srt);
    expect(srt.flatMap((text) => /^(SPEAKER_\d{2}): /.exec(text)?.[1] ?? [])).toEqual(turns);
    const vtt = await cuesOf(OUTPUT_KEYS.vtt);
    expect(vtt.every((text) => /^<v SPEAKER_\d{2}>/.test(text))).toBe(true);
    expect(JSON.parse(await getText(OUTPUT_KEYS.segments))).toMatchObject({ speakers: r.speakers });
  });

  it("attributes at least 90 % of the words to the voice that spoke them", () => {
    const words = outcome.result!.segments.flatMap((s) => s.words!);
    const voiced = words.filter((w) => voiceAt(w) !== undefined);
    // The labels map to voices by the first word; every later word must agree with that mapping.
    const labelOf = new Map<Voice, string>();
    for (const w of voiced) if (!labelOf.has(voiceAt(w)!)) labelOf.set(voiceAt(w)!, w.speaker!);
    const right = voiced.filter((w) => labelOf.get(voiceAt(w)!) === w.speaker).length;
    expect(voiced.length).toBeGreaterThan(40);
    expect(right / voiced.length).toBeGreaterThanOrEqual(0.9);
  });

  it("fails non-retryably when diarization is asked for but the platform has no engine", async () => {
    const failed = await runHandler({ engine: new ScriptedEngine(), diarization: DIARIZE, settings: { diarizationEngine: "none" } });
    expectFailure(failed, "engine_unavailable", false);
  });
});

describe("transcription handler stages", () => {
  it("takes the chunked path when the source is longer than singlePassMaxSec: split, one transcribe_chunk per chunk, merge", async () => {
    const engine = new ScriptedEngine();
    const { ctx, result } = await runHandler({ engine, settings: { singlePassMaxSec: 5, maxChunkSec: 10 } });
    const tl = ctx.report.timeline();
    const inner = tl.slice(tl.indexOf("transcribe:started") + 1, tl.indexOf("transcribe:completed"));
    const chunks = engine.calls.length;
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(inner.slice(0, 3)).toEqual(["split_chunk:started", "split_chunk:completed", "compress_chunk:skipped"]);
    expect(inner.filter((e) => e === "transcribe_chunk:completed")).toHaveLength(chunks);
    expect(inner.slice(-3)).toEqual(["merge:started", "merge:completed", "diarize:skipped"]);
    // Each chunk's words are shifted by its offset: the sentence appears once per chunk, in order.
    const starts = result!.segments.map((s) => s.start);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(result!.segments.filter((s) => s.text === "he was not an ill disposed young man")).toHaveLength(chunks);
  });

  it("reports each finished chunk's share of the transcription as a fraction that only grows, ending at 1", async () => {
    const { ctx } = await runHandler({ engine: new ScriptedEngine(), settings: { singlePassMaxSec: 5, maxChunkSec: 10 } });
    const fractions = ctx.report
      .eventsOf("transcribe_chunk")
      .filter((e) => e.event === "completed")
      .map((e) => e.details?.["fraction"] as number);
    expect(fractions.length).toBeGreaterThanOrEqual(3);
    expect(fractions).toEqual([...fractions].sort((a, b) => a - b));
    expect(fractions.at(-1)).toBe(1);
  });

  it("never cuts a chunk longer than maxChunkSec and cuts at silences", async () => {
    const { ctx } = await runHandler({ engine: new ScriptedEngine(), settings: { singlePassMaxSec: 5, maxChunkSec: 10 } });
    const split = ctx.report.eventsOf("split_chunk").find((e) => e.event === "completed")!;
    const bounds = [0, ...(split.details!["boundaries"] as number[]), 28.8];
    for (let i = 1; i < bounds.length; i++) expect(bounds[i]! - bounds[i - 1]!).toBeLessThanOrEqual(10);
    // The recordings are separated by ~0.8 s of silence; cuts land inside those gaps, not mid-recording.
    for (const b of bounds.slice(1, -1)) expect([7.5, 10.9, 17.4, 24.3].some((g) => Math.abs(g - b) < 0.6)).toBe(true);
  });

  it("compresses chunks for engines reached over the network", async () => {
    const engine = new ScriptedEngine("mp3");
    const { ctx } = await runHandler({ engine, settings: { singlePassMaxSec: 5, maxChunkSec: 10 } });
    expect(ctx.report.timeline()).toContain("compress_chunk:completed");
    expect(engine.calls.every((c) => c.path.endsWith(".mp3"))).toBe(true);
  });

  it("compresses the whole file on the single-pass path for network engines", async () => {
    const engine = new ScriptedEngine("ogg");
    const { ctx } = await runHandler({ engine });
    const tl = ctx.report.timeline();
    expect(tl.indexOf("compress_chunk:completed")).toBeGreaterThan(tl.indexOf("transcribe_file:started"));
    expect(engine.calls[0]!.path.endsWith(".ogg")).toBe(true);
  });

  it("skips denoise_audio when denoise is off in platform settings", async () => {
    const { ctx } = await runHandler({ engine: new ScriptedEngine(), settings: { denoise: false } });
    expect(ctx.report.eventsOf("denoise_audio")).toEqual([
      { stage: "denoise_audio", event: "skipped", details: { reason: "denoise disabled in platform settings" } },
    ]);
  });

  it("applies the denoise high-pass while extracting, so an engine with its own noise reduction costs no second pass", async () => {
    class SelfDenoisingEngine extends ScriptedEngine {
      override readonly reducesNoise = true;
    }
    const engine = new SelfDenoisingEngine();
    const { ctx } = await runHandler({ engine });
    expect(ctx.report.eventsOf("extract_audio").at(-1)).toMatchObject({ event: "completed", details: { highPass: "highpass=f=80" } });
    expect(ctx.report.eventsOf("denoise_audio").at(-1)).toMatchObject({
      event: "completed",
      details: { filter: "highpass=f=80", spectral: false, passes: 1 },
    });
    expect(engine.calls[0]!.path.endsWith("audio.wav")).toBe(true);
  });

  it("runs separate_vocals only when platform settings enable it", async () => {
    const { ctx } = await runHandler({ engine: new ScriptedEngine(), settings: { separateVocals: true } });
    expect(ctx.report.eventsOf("separate_vocals").map((e) => e.event)).toEqual(["started", "completed"]);
  });

  it("completes video_analysis with no visual chunks for an audio-only source", async () => {
    const { ctx, result } = await runHandler({ engine: new ScriptedEngine(), sourceKey: "src/audio-only.mp4" });
    expect(result!.visualChunks).toEqual([]);
    expect(ctx.report.eventsOf("video_analysis").at(-1)).toMatchObject({ event: "completed", details: { scenes: 0 } });
  });

  it("passes the language hint to the engine", async () => {
    const engine = new ScriptedEngine();
    await runHandler({ engine, language: "en-US" });
    expect(engine.calls[0]!.language).toBe("en");
  });

  it("passes the job's vocabulary and its work dir to every engine call", async () => {
    const engine = new ScriptedEngine();
    const { ctx } = await runHandler({
      engine,
      vocabulary: ["Kubernetes", "Ada Lovelace"],
      settings: { singlePassMaxSec: 5, maxChunkSec: 10 },
    });
    expect(engine.calls.length).toBeGreaterThan(1);
    expect(engine.calls.every((c) => c.vocabulary?.join("|") === "Kubernetes|Ada Lovelace" && c.workDir === ctx.workDir)).toBe(true);
  });

  it("records the engine's confidence in the language it detected: over chunks, the mean of those in the transcript's language", async () => {
    const confidence = [0.9, 0.5, 0.7, 0.2];
    const engine = new ScriptedEngine("wav", true, (call) => ({
      language: call === 4 ? "es" : "en",
      languageConfidence: confidence[call - 1]!,
      words: sentence(),
    }));
    const { result } = await runHandler({
      engine,
      settings: { singlePassMaxSec: 5, maxChunkSec: 10, supportedSourceLanguages: ["en", "es"] },
    });
    // Chunks 1-3 heard English (0.9, 0.5, 0.7); a fourth, if any, Spanish: it does not count.
    expect(result!.languageConfidence).toBeCloseTo(0.7, 3);
  });

  it("uses the turns of a speech engine that labels speakers itself: the whole file in one request, no diarization engine", async () => {
    const engine = new ScriptedEngine("wav", false, () => ({
      language: "en",
      words: sentence(),
      speakerTurns: [
        { start: 0, end: 1.6, speaker: "B" },
        { start: 1.6, end: 9, speaker: "A" },
      ],
    }));
    engine.labelsSpeakers = true;
    const refuse = {
      createDiarizer: () => {
        throw new Error("no diarization engine may run");
      },
    };
    const { ctx, result, error } = await runHandler({
      engine,
      diarization: { enabled: true, minSpeakers: null, maxSpeakers: null },
      settings: { singlePassMaxSec: 5 },
      deps: refuse,
    });
    expect(error).toBeUndefined();
    expect(engine.calls).toHaveLength(1);
    expect(ctx.report.timeline()).toContain("transcribe_file:completed");
    expect(result!.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    expect(result!.diarization).toEqual({ engine: "scripted", model: "scripted-1" });
    expect(ctx.report.eventsOf("diarize").at(-1)?.details).toMatchObject({ source: "speech engine" });
  });

  it("lets the engine detect among a job's allowed languages, and recognises a part heard as another language again in the first allowed one", async () => {
    const engine = new ScriptedEngine("wav", true, (call) => ({ language: call === 1 ? "fr" : "es", words: sentence() }));
    const { result } = await runHandler({ engine, languages: ["es", "en"], settings: { supportedSourceLanguages: ["en", "es", "fr"] } });
    expect(engine.calls.map((c) => c.language)).toEqual([undefined, "es"]);
    expect(result!.language).toBe("es");
  });
});

describe("transcription handler redaction", () => {
  const PII_WORDS = ["my", "name", "is", "ana", "lopez", "mail", "ana@example.com", "today"];
  const heard = (): Word[] => PII_WORDS.map((word, i) => ({ word, start: 0.5 + i * 0.3, end: 0.75 + i * 0.3, confidence: 0.9 }));
  const REDACT: StoredRedaction = { entities: ["EMAIL", "PERSON"], reason: "job", keepUnredacted: true };

  it("redacts before any file is written: the segments and all four files hold the placeholders, never the values", async () => {
    const engine = new ScriptedEngine("wav", false, () => ({ language: "en", words: heard() }));
    const { ctx, result, error } = await runHandler({ engine, redaction: REDACT });
    expect(error).toBeUndefined();
    expect(ctx.report.eventsOf("redact").at(-1)).toMatchObject({
      event: "completed",
      details: { entities: 2, byType: { EMAIL: 1, PERSON: 1 } },
    });
    expect(result!.segments.map((s) => s.text).join(" ")).toContain("[EMAIL]");
    for (const key of Object.values(OUTPUT_KEYS)) {
      const text = await getText(key);
      expect(text, key).not.toContain("ana@example.com");
      expect(text, key).not.toMatch(/lopez/i);
    }
  });

  it("records each entity's type and time span and hands over the text as heard when the project keeps it", async () => {
    const engine = new ScriptedEngine("wav", false, () => ({ language: "en", words: heard() }));
    const { result } = await runHandler({ engine, redaction: REDACT });
    const email = result!.redaction!.entities.find((e) => e.type === "EMAIL")!;
    expect(email).toMatchObject({ start: 0.5 + 6 * 0.3, end: 0.75 + 6 * 0.3 });
    expect(result!.unredactedSegments!.map((s) => s.text).join(" ")).toContain("ana@example.com");
    expect(JSON.stringify(result!.redaction)).not.toContain("ana@example.com");
  });

  it("hands over no text as heard when the project keeps none", async () => {
    const engine = new ScriptedEngine("wav", false, () => ({ language: "en", words: heard() }));
    const { result } = await runHandler({ engine, redaction: { ...REDACT, keepUnredacted: false } });
    expect(result!.unredactedSegments).toBeUndefined();
  });
});

describe("transcription handler failures", () => {
  it("fails upload_full_text with a non-retryable processing_failed when the bucket refuses the write, after every earlier stage completed", async () => {
    const readOnly = {
      fullText: "read-only/full.txt",
      segments: "read-only/segments.json",
      srt: "read-only/t.srt",
      vtt: "read-only/t.vtt",
    };
    const outcome = await runHandler({ outputKeys: readOnly, engine: new ScriptedEngine() });
    const f = expectFailure(outcome, "processing_failed", false);
    expect(f.message).toMatch(/upload of customer-media\/read-only\/full\.txt failed: .*403 AccessDenied/);
    expect(outcome.ctx.report.timeline().slice(-3)).toEqual([
      "video_analysis:completed",
      "upload_full_text:started",
      "upload_full_text:failed",
    ]);
  });

  it("fails probe with non-retryable duration_exceeded naming both durations for a 3601-second source", async () => {
    const outcome = await runHandler({ sourceKey: "src/over-limit.mp4", engine: new ScriptedEngine() });
    const f = expectFailure(outcome, "duration_exceeded", false);
    expect(f.message).toBe("source duration 3601.0 s exceeds the maximum of 3600 s");
    expect(outcome.ctx.report.eventsOf("probe").at(-1)).toMatchObject({ event: "failed", error: { code: "duration_exceeded" } });
  });

  it("fails probe with non-retryable unsupported_media for a file that is not media", async () => {
    const outcome = await runHandler({ sourceKey: "src/garbage.mp4", engine: new ScriptedEngine() });
    const f = expectFailure(outcome, "unsupported_media", false);
    expect(f.message).toMatch(/not a readable media file/);
    expect(outcome.ctx.report.timeline().at(-1)).toBe("probe:failed");
  });

  it("fails download with non-retryable source_not_found for a missing object", async () => {
    const outcome = await runHandler({ sourceKey: "src/missing.mp4", engine: new ScriptedEngine() });
    expectFailure(outcome, "source_not_found", false);
    expect(outcome.ctx.report.timeline()).toEqual(["download:started", "download:failed"]);
  });

  it("fails download with source_access_denied when the bucket refuses the credentials", async () => {
    const outcome = await runHandler({ storage: "wrong-secret", engine: new ScriptedEngine() });
    expectFailure(outcome, "source_access_denied", false);
  });

  it("refuses a language the local engine does not support, naming the engine and its languages", async () => {
    const outcome = await runHandler({ language: "fr", settings: { supportedSourceLanguages: ["en", "fr"] } });
    const f = expectFailure(outcome, "unsupported_language", false);
    expect(f.message).toBe("language fr is not supported by the configured engine local-pocketsphinx (supported: en)");
  });

  it("refuses a list of allowed languages for an engine that cannot detect the language, before any work", async () => {
    const engine = new ScriptedEngine();
    const failed = await runHandler({ engine, languages: ["en", "es"], settings: { supportedSourceLanguages: ["en", "es"] } });
    expect(expectFailure(failed, "unsupported_language", false).message).toMatch(/cannot choose among en, es/);
    expect(engine.calls).toHaveLength(0);
  });

  it("refuses a language hint that is not a platform-supported source language", async () => {
    const outcome = await runHandler({ language: "de", engine: new ScriptedEngine("wav", true) });
    const f = expectFailure(outcome, "unsupported_language", false);
    expect(f.message).toBe("language de is not a supported source language (supported: en)");
  });

  it("fails when the engine detects a language the platform does not allow", async () => {
    const engine = new ScriptedEngine("wav", true, () => ({ language: "de", words: sentence() }));
    const outcome = await runHandler({ engine });
    const f = expectFailure(outcome, "unsupported_language", false);
    expect(f.message).toBe("detected language de is not a supported source language (supported: en)");
  });

  it("reports a transient engine failure on transcribe_chunk as retryable and stops the other chunks", async () => {
    const engine = new ScriptedEngine("wav", false, (n) =>
      n === 2 ? new StepFailure("processing_failed", "engine hiccup", true) : { language: "en", words: sentence() },
    );
    const outcome = await runHandler({ engine, settings: { singlePassMaxSec: 5, maxChunkSec: 10 }, cores: 1 });
    expectFailure(outcome, "processing_failed", true);
    const tl = outcome.ctx.report.timeline();
    expect(tl).toContain("transcribe_chunk:failed");
    expect(tl).not.toContain("merge:started");
    expect(engine.calls).toHaveLength(2);
  });

  it("rejects invalid input without touching storage", async () => {
    const ctx = await makeHandlerContext({ input: { bucket: BUCKET }, storage: storageGrant(s3, BUCKET) });
    const err = await transcribe(ctx, { createEngine: () => new ScriptedEngine() }).catch((e: unknown) => e);
    await ctx.dispose();
    expect(err).toMatchObject({ code: "invalid_input", retryable: false });
    expect(ctx.report.events).toEqual([]);
  });

  it("stops when the task's signal is aborted mid-transcription", async () => {
    const ctx = await makeHandlerContext({
      input: storedInput("src/speech.mp4", OUTPUT_KEYS),
      storage: storageGrant(s3, BUCKET),
    });
    const started = Date.now();
    const run = transcribe(ctx);
    const poll = setInterval(() => {
      if (ctx.report.timeline().includes("transcribe_file:started")) ctx.abort.abort(new Error("lease lost"));
    }, 20);
    const err = await run.catch((e: unknown) => e);
    clearInterval(poll);
    await ctx.dispose();
    expect(err).toBeInstanceOf(Error);
    expect(ctx.report.timeline()).not.toContain("transcribe_file:completed");
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
