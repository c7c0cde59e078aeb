import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import { BRAND_LOGO_CALL } from "../../contracts/branding";
import { ClipGenerationResultSchema, type ClipGenerationResult, type ClipTranscript } from "../../contracts/clips";
import { flattenOutputUrls, HANDOVER_TRANSCRIPT_CALL } from "../../contracts/presigned";
import { S3Client } from "../../contracts/s3-client";
import { renderClipsStep } from "../../contracts/services/clip-generation";
import { stepSpec } from "../../contracts/services/types";
import { createSpeechEngine } from "../../gpu-runner/engines/speech/factory";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { createClipGenerationHandler } from "../../gpu-runner/services/clip-generation/handler";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { clipContext } from "../support/clip-context";
import { makeHandlerContext, NO_PLATFORM, storageGrant, type TestContext } from "../support/handler-context";
import { presign } from "../support/presign";
import { faceVideo, speechWav } from "../support/media-fixtures";
import { frameLevels, SILENCE_DBFS, TOLERANCE_SEC } from "../support/redacted-speech";
import { toPcm16 } from "../support/synthetic-speech";

/**
 * The clip generation runner step on real media: the LibriVox speech over real faces, transcribed
 * once by PocketSphinx, rendered by ffmpeg, checked with ffprobe. Clip bounds are shortened by
 * settings (8–14 s) so each render stays short.
 */

const BUCKET = "clips-test";
const CLIP_SETTINGS = { minClipSec: 8, maxClipSec: 14, x264Preset: "superfast" };
let s3: LocalS3;
let client: S3Client;
let transcript: ClipTranscript;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  const engine = createSpeechEngine(DEFAULT_SETTINGS.transcription, process.env);
  const heard = await engine.transcribe(await speechWav(), { signal: AbortSignal.timeout(60_000) });
  transcript = {
    textSourceId: "txt_test",
    language: "en",
    durationSec: 28.8,
    segments: [
      { start: heard.words[0]!.start, end: heard.words.at(-1)!.end, text: heard.words.map((w) => w.word).join(" "), words: heard.words },
    ],
  };
  await client.putObject(BUCKET, "scratch/transcript.json", JSON.stringify(transcript), "application/json");
  await client.putObject(BUCKET, "src/moving.mp4", await readFile(await faceVideo("moving")), "video/mp4");
  await client.putObject(BUCKET, "src/interview.mp4", await readFile(await faceVideo("interview")), "video/mp4");
}, 180_000);

afterAll(async () => {
  await s3?.close();
});

interface RunOptions {
  sourceKey?: string;
  /** The handed-over transcript's key (default: the PocketSphinx transcript, not redacted). */
  transcriptKey?: string;
  options?: Record<string, unknown>;
  clips?: Record<string, unknown>;
}

async function runClips(opts: RunOptions = {}): Promise<{ ctx: TestContext; result: ClipGenerationResult }> {
  const ctx = await makeHandlerContext({
    input: {
      clipGenerationId: "clp_test",
      textSourceId: "txt_test",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: BUCKET,
      sourceKey: opts.sourceKey ?? "src/moving.mp4",
      resolvedOutputPrefix: "out/clips/",
      options: {
        maxClips: 1,
        layout: "vertical_9_16",
        allowAutoLayout: true,
        fillStyle: null,
        captions: true,
        supportedCategories: [...DEFAULT_SETTINGS.policy.clip_generation.free.supportedCategories],
        ...opts.options,
      },
      analysis: { vision: true, category: true },
    },
    step: stepSpec("clip_generation", renderClipsStep),
    outputs: { fetch_transcription: { transcriptKey: opts.transcriptKey ?? "scratch/transcript.json" } },
    storage: storageGrant(s3, BUCKET),
    settings: { clips: { ...CLIP_SETTINGS, ...opts.clips } },
  });
  try {
    const result = ClipGenerationResultSchema.parse(await createClipGenerationHandler()(clipContext(ctx)));
    return { ctx, result };
  } finally {
    await ctx.dispose();
  }
}

interface Probed {
  width: number;
  height: number;
  vcodec: string;
  profile: string;
  pixFmt: string;
  fps: string;
  acodec: string;
  durationSec: number;
  faststart: boolean;
}

async function probeObject(key: string): Promise<Probed> {
  const file = path.join(os.tmpdir(), `clip-probe-${Math.random().toString(36).slice(2)}.mp4`);
  const bytes = new Uint8Array(await (await client.getObject(BUCKET, key)).arrayBuffer());
  await writeFile(file, bytes);
  const res = await runToolOk(
    "ffprobe",
    [
      "-v",
      "error",
      "-show_entries",
      "stream=codec_type,codec_name,profile,width,height,pix_fmt,r_frame_rate:format=duration",
      "-of",
      "json",
      ...INPUT_GUARD,
      "-i",
      file,
    ],
    { collectStdout: true },
  );
  const j = JSON.parse(res.stdout) as { streams: Array<Record<string, string | number>>; format: { duration: string } };
  const v = j.streams.find((s) => s["codec_type"] === "video")!;
  const a = j.streams.find((s) => s["codec_type"] === "audio");
  // +faststart puts the moov atom before mdat.
  const head = Buffer.from(bytes.slice(0, 64 * 1024)).toString("latin1");
  return {
    width: Number(v["width"]),
    height: Number(v["height"]),
    vcodec: String(v["codec_name"]),
    profile: String(v["profile"]),
    pixFmt: String(v["pix_fmt"]),
    fps: String(v["r_frame_rate"]),
    acodec: String(a?.["codec_name"] ?? "none"),
    durationSec: Number(j.format.duration),
    faststart: head.indexOf("moov") >= 0 && (head.indexOf("mdat") < 0 || head.indexOf("moov") < head.indexOf("mdat")),
  };
}

describe("clip generation, vertical_9_16 on a moving face", () => {
  let run: { ctx: TestContext; result: ClipGenerationResult };
  beforeAll(async () => {
    run = await runClips();
  }, 240_000);

  it("reports every runner stage in spec order", () => {
    const completed = run.ctx.report.events.filter((e) => e.event !== "started").map((e) => e.stage);
    expect(completed).toEqual([
      "download",
      "ingest",
      "detect_scenes",
      "analyze_scenes",
      "build_timeline",
      "detect_category",
      "detect_candidates",
      "render_clips",
      "upload_clips",
    ]);
  });

  it("renders an H.264 High yuv420p + AAC MP4 at 1080×1920, 30 fps, faststart, as long as the record says", async () => {
    const clip = run.result.clips[0]!;
    const p = await probeObject(clip.videoKey);
    expect(p).toMatchObject({
      width: 1080,
      height: 1920,
      vcodec: "h264",
      profile: "High",
      pixFmt: "yuv420p",
      fps: "30/1",
      acodec: "aac",
      faststart: true,
    });
    expect(Math.abs(p.durationSec - clip.durationSec)).toBeLessThan(0.1);
    expect(clip).toMatchObject({ width: 1080, height: 1920 });
  });

  it("uploads a poster JPEG beside each clip", async () => {
    const poster = new Uint8Array(await (await client.getObject(BUCKET, run.result.clips[0]!.posterKey)).arrayBuffer());
    expect([poster[0], poster[1]]).toEqual([0xff, 0xd8]);
  });

  it("records the engines honestly: a vision model, a category engine, and ffmpeg as the renderer", () => {
    expect(run.result.engines.vision?.engine).toBe("local-human");
    expect(run.result.engines.category?.engine).toBe("local-lexicon");
    expect(run.result.engines.renderer).toMatch(/ffmpeg/);
  });

  it("records no redacted audio for a transcript that was not redacted", () => {
    expect(run.result.redactedAudio).toBeUndefined();
  });

  it("frames the clip by the face it sees", () => {
    const framing = run.result.clips[0]!.framing ?? {};
    expect((framing["speaker"] ?? 0) + (framing["face"] ?? 0)).toBeGreaterThan(0.5);
  });
});

describe("clips of a redacted transcript", () => {
  let run: { ctx: TestContext; result: ClipGenerationResult };
  // Every sixth word redacted, each its own span: none touch, so each counts once.
  let spans: Array<{ type: "PERSON"; start: number; end: number }>;
  beforeAll(async () => {
    const words = transcript.segments[0]!.words!;
    spans = words.filter((_, i) => i % 6 === 2).map((w) => ({ type: "PERSON" as const, start: w.start, end: w.end }));
    await client.putObject(BUCKET, "scratch/redacted.json", JSON.stringify({ ...transcript, redactedSpans: spans }), "application/json");
    run = await runClips({
      transcriptKey: "scratch/redacted.json",
      options: { layout: "horizontal_16_9", allowAutoLayout: false },
      clips: { vision: false },
    });
  }, 240_000);

  it("records how many redacted spans its clip's audio silenced", () => {
    const clip = run.result.clips[0]!;
    const inClip = spans.filter((s) => s.end > clip.start && s.start < clip.end);
    expect(inClip.length).toBeGreaterThan(2);
    expect(run.result.redactedAudio).toEqual({ mode: "silence", spans: inClip.length });
  });

  it("silences every redacted word inside the clip", async () => {
    const clip = run.result.clips[0]!;
    const file = path.join(os.tmpdir(), `clip-redacted-${Math.random().toString(36).slice(2)}.mp4`);
    await writeFile(file, new Uint8Array(await (await client.getObject(BUCKET, clip.videoKey)).arrayBuffer()));
    const levels = frameLevels(await toPcm16(file), 0.01);
    const inside = spans.filter((s) => s.start >= clip.start && s.end <= clip.end && s.end - s.start > 2 * TOLERANCE_SEC + 0.02);
    expect(inside.length).toBeGreaterThan(0);
    for (const s of inside) {
      const frames = levels.slice(
        Math.ceil((s.start - clip.start + TOLERANCE_SEC) * 100),
        Math.floor((s.end - clip.start - TOLERANCE_SEC) * 100),
      );
      expect(Math.max(...frames), `${s.start}–${s.end}`).toBeLessThan(SILENCE_DBFS);
    }
  });
});

describe("several clips, rendered two at once", () => {
  const SHORT = { minClipSec: 5, maxClipSec: 8 };
  let together: { ctx: TestContext; result: ClipGenerationResult };
  let oneByOne: { ctx: TestContext; result: ClipGenerationResult };
  beforeAll(async () => {
    together = await runClips({ options: { maxClips: 3 }, clips: { ...SHORT, rendersAtOnce: 2 } });
    oneByOne = await runClips({ options: { maxClips: 3 }, clips: { ...SHORT, rendersAtOnce: 1 } });
  }, 240_000);

  it("says how many clips it rendered at once", () => {
    expect(together.result.clips.length).toBeGreaterThanOrEqual(2);
    expect(together.ctx.report.eventsOf("render_clips").at(-1)?.details?.["rendersAtOnce"]).toBe(2);
    expect(oneByOne.ctx.report.eventsOf("render_clips").at(-1)?.details?.["rendersAtOnce"]).toBe(1);
  });

  it("uploads each clip under its own index, as long as its own record says", async () => {
    for (const [i, clip] of together.result.clips.entries()) {
      expect(clip.videoKey).toBe(`out/clips/clp_test/clip-${String(i + 1).padStart(2, "0")}.mp4`);
      const p = await probeObject(clip.videoKey);
      expect(Math.abs(p.durationSec - clip.durationSec)).toBeLessThan(0.1);
    }
  });

  // The framing is left out: which vision thread gets which frame varies from run to run, and faces
  // followed from a thread's previous frame may differ by a few pixels from faces detected anew.
  it("makes the same clips as rendering them one at a time", () => {
    const shape = (r: ClipGenerationResult) => r.clips.map((c) => ({ start: c.start, end: c.end, text: c.text, title: c.title }));
    expect(shape(together.result)).toEqual(shape(oneByOne.result));
  });
});

describe("clip generation on a long source (sparse analysis, dense around the moments)", () => {
  let run: { ctx: TestContext; result: ClipGenerationResult };
  beforeAll(async () => {
    // 87 proxy frames over a limit of 30: every third frame first, then the moment's frames.
    run = await runClips({ clips: { visionMaxFrames: 30 } });
  }, 240_000);

  it("analyses at most visionMaxFrames frames across the source, saying how sparsely", () => {
    const details = run.ctx.report.eventsOf("analyze_scenes").at(-1)?.details ?? {};
    expect(details["frames"]).toBeLessThanOrEqual(30);
    expect(details["sampledEvery"]).toBe(1);
  });

  it("analyses the chosen moment densely before rendering it, and the crop still follows the face", () => {
    const details = run.ctx.report.eventsOf("render_clips").at(-1)?.details ?? {};
    expect(details["denseAnalysisFrames"]).toBeGreaterThan(0);
    expect(details["denseFramesFollowed"]).toBeLessThan(details["denseAnalysisFrames"] as number);
    const framing = run.result.clips[0]!.framing ?? {};
    expect((framing["speaker"] ?? 0) + (framing["face"] ?? 0)).toBeGreaterThan(0.5);
  });

  it("finds the scene cuts in the ingest decode, without a second pass", () => {
    expect(run.ctx.report.eventsOf("detect_scenes").at(-1)?.details?.["method"]).toMatch(/in the ingest decode/);
  });
});

describe("clips of an s3_presigned job", () => {
  /** A presigned clip job's context: one clip, its URLs, and a platform answering the runner calls named in `answers`. */
  async function presignedJob(name: string, options: Record<string, unknown>, answers: Record<string, unknown>, calls: string[]) {
    return makeHandlerContext({
      input: {
        clipGenerationId: `clp_${name}`,
        textSourceId: "txt_test",
        sourceType: "s3_presigned",
        // As create stores them: query strings cut off (the full URLs are the task's presigned grant).
        sourceUrl: "http://s3.test/clips/src/moving.mp4?…redacted",
        outputUrls: {
          video: [`http://s3.test/clips/presigned/${name}.mp4?…redacted`],
          poster: [`http://s3.test/clips/presigned/${name}.jpg?…redacted`],
        },
        options: {
          maxClips: 1,
          allowAutoLayout: false,
          captions: false,
          supportedCategories: [...DEFAULT_SETTINGS.policy.clip_generation.free.supportedCategories],
          ...options,
        },
        analysis: { vision: false, category: false },
        ...(answers[BRAND_LOGO_CALL] ? { branding: { color: "#112233", logo: null } } : {}),
      },
      step: stepSpec("clip_generation", renderClipsStep),
      outputs: { fetch_transcription: { segmentCount: 1 } },
      storage: null,
      presigned: {
        sourceUrl: await presign(s3, "GET", BUCKET, "src/moving.mp4"),
        outputUrls: flattenOutputUrls({
          video: [await presign(s3, "PUT", BUCKET, `presigned/${name}.mp4`)],
          poster: [await presign(s3, "PUT", BUCKET, `presigned/${name}.jpg`)],
        }),
      },
      settings: { clips: CLIP_SETTINGS },
      platform: { ...NO_PLATFORM, call: async (call, _body, schema) => (calls.push(call), schema.parse(answers[call])) },
    });
  }

  it("reads the source and transcript without a bucket and writes clip n and its poster to the n-th URL of their lists", async () => {
    const calls: string[] = [];
    const ctx = await presignedJob(
      "first",
      { layout: "horizontal_16_9", fillStyle: null },
      { [HANDOVER_TRANSCRIPT_CALL]: transcript },
      calls,
    );
    try {
      const result = ClipGenerationResultSchema.parse(await createClipGenerationHandler()(clipContext(ctx)));
      expect(calls).toEqual([HANDOVER_TRANSCRIPT_CALL]);
      expect(result.clips.map((c) => [c.videoKey, c.posterKey])).toEqual([
        [expect.stringMatching(/\/presigned\/first\.mp4\?…redacted$/), expect.stringMatching(/\/presigned\/first\.jpg\?…redacted$/)],
      ]);
      expect((await probeObject("presigned/first.mp4")).vcodec).toBe("h264");
      expect((await client.headObject(BUCKET, "presigned/first.jpg"))?.contentType).toBe("image/jpeg");
    } finally {
      await ctx.dispose();
    }
  }, 240_000);

  it("draws the brand logo it reads through the runner call (no bucket to hand it over in)", async () => {
    const png = await sharp({ create: { width: 80, height: 40, channels: 4, background: "#ff5500" } })
      .png()
      .toBuffer();
    const logo = { data: png.toString("base64"), contentType: "image/png", bucket: "brand", key: "logo.png", bytes: png.byteLength };
    const calls: string[] = [];
    const answers = { [HANDOVER_TRANSCRIPT_CALL]: transcript, [BRAND_LOGO_CALL]: { logo, note: null } };
    const ctx = await presignedJob("branded", { layout: "horizontal_in_vertical", fillStyle: "branding" }, answers, calls);
    try {
      await createClipGenerationHandler()(clipContext(ctx));
      expect(calls).toContain(BRAND_LOGO_CALL);
      const branding = ctx.report.eventsOf("render_clips").at(-1)?.details?.["branding"] as { logo: string };
      expect(branding.logo).toMatch(/^\d+×\d+$/);
    } finally {
      await ctx.dispose();
    }
  }, 240_000);
});
