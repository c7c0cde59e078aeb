import { readFile } from "node:fs/promises";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createVoiceStep, VoiceCreationResultSchema, VoiceCreationStoredSchema } from "../../contracts/services/voice-creation";
import { stepSpec } from "../../contracts/services/types";
import type { StoredConsents } from "../../contracts/voice-consent";
import { createSynthesisEngine } from "../../gpu-runner/engines/synthesis/factory";
import { createVoiceCreationHandler } from "../../gpu-runner/services/voice-creation/handler";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import type { FakeReplicate } from "../support/fakes/replicate";
import { localS3Client, makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import { engineEnv, REPLICATE_FAKE, startHosted, type HostedFixture } from "../support/hosted-fakes";
import { twoVoiceSample } from "../support/two-voice";

/**
 * The voice_creation runner step under `voiceCloning.requireConsent` with a cloning engine (XTTS-v2
 * through the local Replicate fake): the sample's granted consent makes a clone naming it; without
 * one the local engine makes a voice profile, and the voice says why.
 */
const BUCKET = "voice-consent-test";
let s3: LocalS3;
let replicate: HostedFixture<FakeReplicate>;
let ctx: TestContext | undefined;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  replicate = await startHosted(REPLICATE_FAKE, "SYNTHESIS");
  await localS3Client(s3).putObject(BUCKET, "samples/talk.wav", await readFile((await twoVoiceSample()).wav), "audio/wav");
}, 120_000);
afterAll(async () => {
  await s3?.close();
  await replicate?.fake.close();
});
afterEach(async () => {
  await ctx?.dispose();
  ctx = undefined;
});

async function create(voiceConsent: StoredConsents) {
  const first = (await twoVoiceSample()).truth[0]!;
  const c = await makeHandlerContext({
    input: {
      voiceId: "vce_c",
      name: "Speaker",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: BUCKET,
      sourceKey: "samples/talk.wav",
      language: "es",
      outputPrefix: "voices/vce_c/",
      startSec: first.start,
      endSec: first.end,
      voiceConsent,
    },
    storage: storageGrant(s3, BUCKET),
    settings: { dubbing: { speechEngine: "replicate" } },
    step: stepSpec("voice_creation", createVoiceStep),
    stored: VoiceCreationStoredSchema,
  });
  ctx = c;
  const handler = createVoiceCreationHandler({ createEngine: () => createSynthesisEngine("replicate", engineEnv(replicate)) });
  return VoiceCreationResultSchema.parse(await handler(c));
}

describe("voice creation under voiceCloning.requireConsent", () => {
  it("clones a sample with a granted consent, naming the consent, and keeps its reference clip", async () => {
    const r = await create({ required: true, granted: { sample: { consentId: "vcn_s", kind: "recording" } } });
    expect(r).toMatchObject({ spec: { kind: "clone", engine: "replicate" }, consent: { consentId: "vcn_s", kind: "recording" } });
    expect(r.referenceKey).toBe("voices/vce_c/reference.wav");
    expect(r.reason).toBeUndefined();
  });

  it("without consent makes a voice profile by the local engine, saying why, and keeps no clip", async () => {
    const r = await create({ required: true, granted: {} });
    expect(r).toMatchObject({ spec: { kind: "profile" }, consent: null, referenceKey: null });
    expect(r.model).toMatch(/espeak-ng|festival/);
    expect(r.reason).toBe("no consent for this sample (voiceCloning.requireConsent): a voice profile, not a clone");
  });

  it("with the policy off, clones as before", async () => {
    const r = await create({ required: false, granted: {} });
    expect(r).toMatchObject({ spec: { kind: "clone" }, consent: null });
  });
});
