import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClipTranscript } from "../../contracts/clips";
import type { S3Client } from "../../contracts/s3-client";
import { renderClipsStep } from "../../contracts/services/clip-generation";
import { dubStep } from "../../contracts/services/dubbing";
import { thumbnailStep } from "../../contracts/services/thumbnail";
import { stepSpec } from "../../contracts/services/types";
import { createVoiceStep } from "../../contracts/services/voice-creation";
import { StepFailure } from "../../contracts/step-failure";
import { createClipGenerationHandler } from "../../gpu-runner/services/clip-generation/handler";
import { MIX_RATE } from "../../gpu-runner/services/dubbing/audio";
import { createDubbingHandler } from "../../gpu-runner/services/dubbing/handler";
import { createThumbnailHandler } from "../../gpu-runner/services/thumbnail/handler";
import { createTranscriptionHandler } from "../../gpu-runner/services/transcription/handler";
import { createVoiceCreationHandler } from "../../gpu-runner/services/voice-creation/handler";
import type { StepHandler } from "../../gpu-runner/handler";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { FakePlatform } from "../support/fake-platform";
import { localS3Client, makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import {
  concatList,
  dashManifest,
  frameRate,
  hlsPlaylist,
  hugePicture,
  localSegment,
  loopbackListener,
  lyingDuration,
  manyStreams,
  tinyLongVideo,
  type Listener,
} from "../support/hostile-media";

/**
 * Hostile media through the real handlers of every service that reads a source (transcription,
 * clip generation, thumbnails, dubbing, voice creation), each file built at test time and put in a
 * local S3 as a customer would: playlists and manifests named `.mp4` that point at a listener of
 * the test, pictures, stream counts and frame rates over the bounds, containers that lie about their
 * duration. Each is refused at the probe with its documented, final code, and nothing reaches the
 * listener.
 */

const BUCKET = "hostile";
const TRANSCRIPT: ClipTranscript = {
  textSourceId: "txt_test",
  language: "en",
  durationSec: 6,
  segments: [{ start: 0.5, end: 5, text: "a short line of speech about whales and the sea" }],
};

let s3: LocalS3;
let client: S3Client;
let listener: Listener;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = localS3Client(s3);
  listener = await loopbackListener();
  await client.putObject(BUCKET, "scratch/transcript.json", JSON.stringify(TRANSCRIPT), "application/json");
  const put = async (key: string, body: string) => client.putObject(BUCKET, key, body, "video/mp4");
  await put("hls.mp4", hlsPlaylist(`${listener.url}/segment0.ts`));
  await put("dash.mp4", dashManifest(listener.url));
  await put("concat.mp4", concatList(`${listener.url}/part.mp4`));
  await put("hls-local.mp4", hlsPlaylist(await localSegment()));
}, 120_000);

afterAll(async () => {
  await listener?.close();
  await s3?.close();
});

type Service = "transcription" | "clip_generation" | "thumbnail" | "dubbing" | "voice_creation";

interface Outcome {
  ctx: TestContext;
  result?: Record<string, unknown>;
  error?: unknown;
}

/** Runs `service`'s runner step on the object at `sourceKey` with these platform settings; the work directory is kept until `dispose`. */
async function run(service: Service, sourceKey: string, settings: Record<string, unknown> = {}): Promise<Outcome> {
  const storage = storageGrant(s3, BUCKET);
  const base = { storage, settings };
  let ctx: TestContext;
  let handler: StepHandler;
  switch (service) {
    case "transcription":
      ctx = await makeHandlerContext({
        ...base,
        input: {
          textSourceId: "txt_test",
          sourceType: "s3_direct",
          connectionId: "stc_test",
          bucket: BUCKET,
          sourceKey,
          resolvedOutputPrefix: "out/",
          resolvedOutputKeys: { fullText: "out/t.txt", segments: "out/t.json", srt: "out/t.srt", vtt: "out/t.vtt" },
          options: { preprocessing: { extract: true, denoise: true, separateVocals: false } },
        },
      });
      handler = createTranscriptionHandler() as StepHandler;
      break;
    case "clip_generation":
      ctx = await makeHandlerContext({
        ...base,
        settings: { clips: { vision: false }, ...settings },
        input: {
          clipGenerationId: "clp_hostile",
          textSourceId: "txt_test",
          sourceType: "s3_direct",
          connectionId: "stc_test",
          bucket: BUCKET,
          sourceKey,
          resolvedOutputPrefix: "out/clips/",
          options: {
            maxClips: 1,
            layout: "horizontal_16_9",
            allowAutoLayout: false,
            fillStyle: null,
            captions: false,
            supportedCategories: ["education"],
          },
          analysis: { vision: false, category: false },
        },
        step: stepSpec("clip_generation", renderClipsStep),
        outputs: { fetch_transcription: { transcriptKey: "scratch/transcript.json" } },
      });
      handler = createClipGenerationHandler() as StepHandler;
      break;
    case "thumbnail":
      ctx = await makeHandlerContext({
        ...base,
        settings: { thumbnails: { vision: false, maxCandidates: 4 }, ...settings },
        input: {
          textSourceId: "txt_test",
          sourceType: "s3_direct",
          connectionId: "stc_test",
          bucket: BUCKET,
          sourceKey,
          resolvedOutputPrefix: "out/thumbs/",
          options: { thumbnailCount: 1, nonAiThumbnailCount: 1, ratioWidth: 16, ratioHeight: 9, resolution: 180 },
          size: { width: 320, height: 180 },
          imageModel: null,
        },
        step: stepSpec("thumbnail", thumbnailStep),
        outputs: { fetch_transcription: { transcriptKey: "scratch/transcript.json" } },
      });
      handler = createThumbnailHandler() as StepHandler;
      break;
    case "dubbing": {
      const platform = new FakePlatform({});
      platform.answers = {
        "dubbing.translation": () => ({
          translationId: "trl_h",
          translationBackend: "apertium",
          model: "apertium",
          segments: [{ id: 0, start: 0.5, end: 5, text: "una frase", sourceText: "a line" }],
        }),
        "dubbing.save": () => ({ dubbingId: "dub_h" }),
        "dubbing.speakers": () => ({ turns: [], speakers: [], diarization: null }),
      };
      ctx = await makeHandlerContext({
        ...base,
        platform,
        input: {
          dubbingId: "dub_h",
          transcriptionId: "txt_test",
          translationId: "trl_h",
          sourceLanguage: "en",
          targetLanguage: "es",
          languageKey: "es",
          sourceLayer: "current",
          sourceType: "s3_direct",
          connectionId: "stc_test",
          bucket: BUCKET,
          sourceKey,
          resolvedOutputPrefix: "out/dub/",
          options: {
            diarization: { enabled: false, minSpeakers: null, maxSpeakers: null },
            voiceAssignments: {},
            voiceCloning: { enabled: false },
            tts: { enabled: false, modelId: null },
          },
          assignedVoices: {},
          engines: {
            speech: "local",
            speechModel: null,
            diarization: "local-mfcc",
            diarizationModel: null,
            mixLoudnessLufs: -16,
            duckDb: 18,
          },
        },
        step: stepSpec("dubbing", dubStep),
      });
      handler = createDubbingHandler() as StepHandler;
      break;
    }
    case "voice_creation":
      ctx = await makeHandlerContext({
        ...base,
        settings: { dubbing: { speechEngine: "local" }, ...settings },
        input: {
          voiceId: "vce_h",
          name: "Speaker",
          sourceType: "s3_direct",
          connectionId: "stc_test",
          bucket: BUCKET,
          sourceKey,
          language: "es",
          outputPrefix: "voices/vce_h/",
        },
        step: stepSpec("voice_creation", createVoiceStep),
      });
      handler = createVoiceCreationHandler() as StepHandler;
      break;
  }
  try {
    return { ctx, result: await handler(ctx) };
  } catch (error) {
    return { ctx, error };
  }
}

/** The handler failed with `code`, final, and its message matches. */
async function expectRefused(o: Outcome, code: string, message: RegExp): Promise<void> {
  try {
    expect(o.error, JSON.stringify(o.result ?? null)).toBeInstanceOf(StepFailure);
    const f = o.error as StepFailure;
    expect({ code: f.code, retryable: f.retryable }).toEqual({ code, retryable: false });
    expect(f.message).toMatch(message);
  } finally {
    await o.ctx.dispose();
  }
}

async function upload(key: string, file: string): Promise<string> {
  await client.putObject(BUCKET, key, await readFile(file), "video/mp4");
  return key;
}

describe("a playlist, manifest or list named .mp4 is refused before anything it names is opened", () => {
  it.each<[Service, string, RegExp]>([
    ["transcription", "hls.mp4", /an HLS playlist, not a container this service reads/],
    ["transcription", "dash.mp4", /a DASH manifest, not a container this service reads/],
    ["transcription", "concat.mp4", /a concat list, not a container this service reads/],
    ["clip_generation", "hls.mp4", /an HLS playlist/],
    ["thumbnail", "dash.mp4", /a DASH manifest/],
    ["dubbing", "hls.mp4", /an HLS playlist/],
    ["voice_creation", "dash.mp4", /a DASH manifest/],
  ])("%s: %s fails unsupported_media and the listener it points at hears nothing", async (service, key, message) => {
    await expectRefused(await run(service, key), "unsupported_media", message);
    expect(listener.connections()).toBe(0);
  });

  it("a playlist naming a file on the runner is refused too: its segment is never read", async () => {
    await expectRefused(await run("transcription", "hls-local.mp4"), "unsupported_media", /an HLS playlist/);
  });

  it("the refusal names the containers the service reads", async () => {
    await expectRefused(
      await run("clip_generation", "hls.mp4"),
      "unsupported_media",
      /supported: MP4, MOV, M4V, M4A, 3GP; Matroska, WebM; AVI/,
    );
  });
});

describe("picture and stream bounds, checked at the probe", () => {
  it("a 16000×16000 picture fails unsupported_media naming its size and the bound", async () => {
    const key = await upload("huge.mkv", await hugePicture());
    await expectRefused(
      await run("clip_generation", key),
      "unsupported_media",
      /picture is 16000×16000 \(256,000,000 pixels\); the maximum is 7680×4320/,
    );
  }, 60_000);

  it("more streams than runner.maxStreams fail unsupported_media naming the count", async () => {
    const key = await upload("streams.mkv", await manyStreams(33));
    await expectRefused(
      await run("transcription", key),
      "unsupported_media",
      /the source has 33 streams; at most 32 are accepted \(runner\.maxStreams\)/,
    );
  });

  it("a frame rate over runner.maxFrameRate fails unsupported_media naming the rate", async () => {
    const key = await upload("fps.mp4", await frameRate(1000));
    await expectRefused(await run("thumbnail", key), "unsupported_media", /1000 frames per second; at most 240 are accepted/);
  });

  it("the bounds are settings: a smaller runner.maxWidth refuses an ordinary picture", async () => {
    const key = await upload("fps-ok.mp4", await frameRate(25));
    await expectRefused(
      await run("voice_creation", key, { runner: { maxWidth: 16 } }),
      "unsupported_media",
      /picture is 32×32 .*the maximum is 16×4320/,
    );
  });
});

describe("the duration is the media's, measured from its packets, for every service", () => {
  it("a file that declares 5 s but holds 120 s is read only to the limit and fails duration_exceeded", async () => {
    const key = await upload("holds-120.mkv", await lyingDuration(120, 5));
    const o = await run("transcription", key, { runner: { maxDurationSec: 20 } });
    const probe = o.ctx.report.durations()["probe"] ?? Number.NaN;
    await expectRefused(
      o,
      "duration_exceeded",
      /^source duration of at least 30\.0 s exceeds the maximum of 20 s \(the container declares 5\.0 s\)$/,
    );
    expect(probe).toBeLessThan(5_000);
  }, 60_000);

  it.each<Service>(["clip_generation", "thumbnail", "dubbing", "voice_creation"])(
    "%s: a source longer than runner.maxDurationSec fails duration_exceeded, whatever its container says",
    async (service) => {
      const key = await upload("holds-35.mkv", await lyingDuration(35, 5));
      await expectRefused(
        await run(service, key, { runner: { maxDurationSec: 30 } }),
        "duration_exceeded",
        /^source duration 35\.\d s exceeds the maximum of 30 s \(the container declares 5\.0 s\)$/,
      );
    },
    60_000,
  );

  it.each<Service>(["clip_generation", "thumbnail"])(
    "%s: a 3,601 s source fails duration_exceeded against the spec's 3,600 s",
    async (service) => {
      const key = await upload("long-3601.mp4", await tinyLongVideo(3601));
      await expectRefused(await run(service, key), "duration_exceeded", /^source duration 3601\.0 s exceeds the maximum of 3600 s$/);
    },
    60_000,
  );

  it("transcription's own maximum applies too: the smaller wins", async () => {
    const key = await upload("holds-35.mkv", await lyingDuration(35, 5));
    await expectRefused(
      await run("transcription", key, { runner: { maxDurationSec: 3600 }, transcription: { maxDurationSec: 25 } }),
      "duration_exceeded",
      /exceeds the maximum of 25 s/,
    );
  });

  it("a file that declares 10⁹ s but holds 6 s is dubbed as 6 s: the speech track and the video are 6 s long", async () => {
    const key = await upload("declares-1e9.mkv", await lyingDuration(6, 1e9));
    const o = await run("dubbing", key);
    try {
      expect(o.error).toBeUndefined();
      expect(o.ctx.report.eventsOf("extract_audio").at(-1)).toMatchObject({
        event: "completed",
        details: { declaredDurationSec: 1e9, durationSec: expect.closeTo(6, 0) },
      });
      expect(o.result?.["durationSec"]).toBeCloseTo(6, 0);
      // 16-bit mono at MIX_RATE: about 6 s of it, not 96 TB.
      const raw = (await stat(path.join(o.ctx.workDir, "speech.raw"))).size;
      expect(raw / 2 / MIX_RATE).toBeCloseTo(6, 0);
    } finally {
      await o.ctx.dispose();
    }
  }, 120_000);
});
