import { readFile } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { redactUrl } from "../../contracts/presigned";
import type { S3Client } from "../../contracts/s3-client";
import { createVoiceStep, VoiceCreationResultSchema, VoiceCreationStoredSchema } from "../../contracts/services/voice-creation";
import { stepSpec } from "../../contracts/services/types";
import { createVoiceCreationHandler } from "../../gpu-runner/services/voice-creation/handler";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { localS3Client, makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import { presign } from "../support/presign";
import { silentWav, twoVoiceSample } from "../support/two-voice";

/** The voice_creation runner step on real audio: a voice profile measured from a speaker, and a sample with no speech refused. */

const BUCKET = "voices-test";
let s3: LocalS3;
let client: S3Client;
let ctx: TestContext | undefined;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = localS3Client(s3);
  await client.putObject(BUCKET, "samples/talk.wav", await readFile((await twoVoiceSample()).wav), "audio/wav");
  await client.putObject(BUCKET, "samples/silence.wav", await readFile(await silentWav(6)), "audio/wav");
}, 120_000);
afterAll(async () => s3?.close());
afterEach(async () => {
  await ctx?.dispose();
  ctx = undefined;
});

async function create(sourceKey: string, range: { startSec?: number; endSec?: number } = {}) {
  const c = await makeHandlerContext({
    input: {
      voiceId: "vce_a",
      name: "Speaker",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: BUCKET,
      sourceKey,
      language: "es",
      outputPrefix: "voices/vce_a/",
      ...range,
    },
    storage: storageGrant(s3, BUCKET),
    settings: { dubbing: { speechEngine: "local" } },
    step: stepSpec("voice_creation", createVoiceStep),
    stored: VoiceCreationStoredSchema,
  });
  ctx = c;
  return createVoiceCreationHandler()(c);
}

describe("voice creation handler", () => {
  it("makes a voice profile matched to the speaker's measured pitch and rate, and keeps no clip", async () => {
    const { truth } = await twoVoiceSample();
    const first = truth[0]!;
    const result = VoiceCreationResultSchema.parse(await create("samples/talk.wav", { startSec: first.start, endSec: first.end }));
    expect(result.spec).toMatchObject({ kind: "profile", language: "es" });
    expect(result.referenceKey).toBeNull();
    expect(result.sampleSpeechSec).toBeGreaterThan(2);
    expect(ctx!.report.timeline()).toEqual([
      "download:started",
      "download:completed",
      "extract_audio:started",
      "extract_audio:completed",
      "create_voice:started",
      "create_voice:completed",
      "upload_reference:skipped",
    ]);
  });

  it("refuses a sample without speech with no_speech, not retryable", async () => {
    await expect(create("samples/silence.wav")).rejects.toMatchObject({ code: "no_speech", retryable: false });
  });
});

describe("voice creation of an s3_presigned job", () => {
  it("reads the sample through its GET URL, with no bucket", async () => {
    const first = (await twoVoiceSample()).truth[0]!;
    const sourceUrl = await presign(s3, "GET", BUCKET, "samples/talk.wav");
    const c = await makeHandlerContext({
      input: {
        voiceId: "vce_p",
        name: "Speaker",
        sourceType: "s3_presigned",
        sourceUrl: redactUrl(sourceUrl),
        outputUrls: {},
        language: "es",
        startSec: first.start,
        endSec: first.end,
      },
      storage: null,
      presigned: { sourceUrl, outputUrls: {} },
      settings: { dubbing: { speechEngine: "local" } },
      step: stepSpec("voice_creation", createVoiceStep),
      stored: VoiceCreationStoredSchema,
    });
    ctx = c;
    const result = VoiceCreationResultSchema.parse(await createVoiceCreationHandler()(c));
    expect(result.spec).toMatchObject({ kind: "profile", language: "es" });
    expect(ctx.report.eventsOf("download").at(-1)).toMatchObject({ event: "completed", details: { bytes: expect.any(Number) } });
  });
});
