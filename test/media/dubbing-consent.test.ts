import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { S3Client } from "../../contracts/s3-client";
import { dubStep, DubbingStoredSchema, type DubbingSave } from "../../contracts/services/dubbing";
import type { TranslationSave } from "../../contracts/services/translation";
import { stepSpec } from "../../contracts/services/types";
import type { StoredConsents } from "../../contracts/voice-consent";
import { createSynthesisEngine } from "../../gpu-runner/engines/synthesis/factory";
import { ApertiumCliEngine } from "../../gpu-runner/engines/translation/apertium-cli";
import { createDubbingHandler } from "../../gpu-runner/services/dubbing/handler";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { twoVoiceVideo, type DubbingSource } from "../support/dubbing-fixtures";
import { FakePlatform } from "../support/fake-platform";
import type { FakeReplicate } from "../support/fakes/replicate";
import { localS3Client, makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import { engineEnv, REPLICATE_FAKE, startHosted, type HostedFixture } from "../support/hosted-fakes";

/**
 * Dubbing under a project's `voiceCloning.requireConsent` (issue 25), on real media with a cloning
 * engine (XTTS-v2 through the local Replicate fake): a speaker the Worker found a granted consent for
 * gets a clone, the other a voice profile by the local engine, with the reason on the record; and
 * the dubbed video and mix carry the provenance note, read back with ffprobe.
 */
const run = promisify(execFile);
const BUCKET = "dub-consent";
const PREFIX = "out/txt_dub/dubbing/dub_c/";
let s3: LocalS3;
let client: S3Client;
let src: DubbingSource;
let replicate: HostedFixture<FakeReplicate>;
let ctx: TestContext | undefined;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = localS3Client(s3);
  replicate = await startHosted(REPLICATE_FAKE, "SYNTHESIS");
  src = await twoVoiceVideo();
  await client.putObject(BUCKET, "src/talk.mp4", await readFile(src.video), "video/mp4");
}, 120_000);
afterAll(async () => {
  await s3?.close();
  await replicate?.fake.close();
});
afterEach(async () => {
  await ctx?.dispose();
  ctx = undefined;
});

/** The source transcript's own speakers, alternating by segment: no diarization runs. */
const label = (i: number) => (i % 2 === 0 ? "SPEAKER_00" : "SPEAKER_01");

async function dub(voiceConsent: StoredConsents) {
  const platform = new FakePlatform({});
  let voices = 0;
  platform.answers = {
    "translation.source": () => src.transcript,
    "translation.save": (b) => ({ translationId: "trl_dub", segmentCount: (b as TranslationSave).segments.length }),
    "voices.create": () => ({ voiceId: `vce_auto${voices++}` }),
    "dubbing.save": () => ({ dubbingId: "dub_c" }),
    "dubbing.speakers": () => ({
      turns: src.transcript.segments.map((seg, i) => ({ start: seg.start, end: seg.end, speaker: label(i) })),
      speakers: [],
      diarization: { engine: "local-mfcc", model: "from-the-transcript" },
    }),
  };
  const c = await makeHandlerContext({
    input: {
      dubbingId: "dub_c",
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
        connectionId: "stc_test",
        bucket: BUCKET,
        resolvedOutputKeys: { srt: "out/txt_dub/transcripts/transcript.es.srt", vtt: "out/txt_dub/transcripts/transcript.es.vtt" },
        engine: { backend: "apertium", model: null, pair: "eng-spa" },
      },
      sourceLayer: "current",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: BUCKET,
      sourceKey: "src/talk.mp4",
      resolvedOutputPrefix: PREFIX,
      options: {
        diarization: { enabled: true, minSpeakers: null, maxSpeakers: null },
        voiceAssignments: {},
        voiceCloning: { enabled: true },
        tts: { enabled: true, modelId: null },
      },
      assignedVoices: {},
      voiceConsent,
      engines: {
        speech: "replicate",
        speechModel: null,
        diarization: "local-mfcc",
        diarizationModel: null,
        mixLoudnessLufs: -16,
        duckDb: 18,
      },
    },
    storage: storageGrant(s3, BUCKET),
    platform,
    step: stepSpec("dubbing", dubStep),
    stored: DubbingStoredSchema,
  });
  ctx = c;
  await createDubbingHandler({
    createTranslation: () => new ApertiumCliEngine(),
    createSynthesis: () => createSynthesisEngine("replicate", engineEnv(replicate)),
  })(c);
  return { platform, save: platform.callsOf("dubbing.save")[0] as DubbingSave };
}

/** The container's tags as ffprobe reads them. */
async function formatTags(key: string): Promise<Record<string, string>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "dub-tags-"));
  const file = path.join(dir, path.basename(key));
  await writeFile(file, Buffer.from(await (await client.getObject(BUCKET, key)).arrayBuffer()));
  const { stdout } = await run("ffprobe", ["-v", "error", "-show_format", "-of", "json", file]);
  return (JSON.parse(stdout) as { format: { tags?: Record<string, string> } }).format.tags ?? {};
}

describe("dubbing under voiceCloning.requireConsent", () => {
  let consented: Awaited<ReturnType<typeof dub>>;
  beforeAll(async () => {
    consented = await dub({ required: true, granted: { SPEAKER_00: { consentId: "vcn_ada", kind: "attestation" } } });
  }, 300_000);

  it("clones the speaker with a granted consent, naming the consent", () => {
    expect(consented.save.speakers.find((s) => s.label === "SPEAKER_00")).toMatchObject({
      status: "voiced",
      voiceKind: "clone",
      consent: { consentId: "vcn_ada", kind: "attestation" },
    });
  });

  it("gives a speaker without consent a voice profile, saying why", () => {
    const other = consented.save.speakers.find((s) => s.label === "SPEAKER_01");
    expect(other).toMatchObject({ status: "voiced", voiceKind: "profile", consent: null });
    expect(other?.reason).toBe("no consent for SPEAKER_01 (voiceCloning.requireConsent): a voice profile, not a clone");
  });

  it("saves the profile as made by the local engine, with the reason, and the clone with its consent", () => {
    const created = consented.platform.callsOf("voices.create") as { label: string; created: Record<string, unknown> }[];
    const of = (l: string) => created.find((c) => c.label === l)?.created;
    expect(of("SPEAKER_00")).toMatchObject({ spec: { kind: "clone" }, consent: { consentId: "vcn_ada" } });
    expect(of("SPEAKER_01")).toMatchObject({ spec: { kind: "profile" }, consent: null, reason: expect.stringContaining("no consent") });
    expect(String(of("SPEAKER_01")?.["model"])).toMatch(/espeak-ng|festival/);
  });

  it("speaks both speakers' segments", () => {
    expect(consented.save.segments.every((s) => s.speech === "spoken" || s.text.trim() === "")).toBe(true);
  });

  it("tags the dubbed video with the provenance note: service, dubbing, synthetic speech, engines and models", async () => {
    const tags = await formatTags(consented.save.artifacts["video"]!);
    expect(tags).toMatchObject({
      media_jobs_service: "media-jobs",
      media_jobs_dubbing_id: "dub_c",
      media_jobs_synthetic_speech: "true",
      media_jobs_speech_engine: "replicate",
      media_jobs_translation_engine: "apertium",
    });
    expect(tags["media_jobs_speech_model"]).toContain("lucataco/xtts-v2");
    expect(tags["comment"]).toMatch(/^Synthetic speech: dubbed by media-jobs \(dubbing dub_c\)/);
  });

  it("tags the mixed audio (an M4A) with the same note", async () => {
    const video = await formatTags(consented.save.artifacts["video"]!);
    const mix = await formatTags(consented.save.artifacts["mix"]!);
    for (const key of ["media_jobs_service", "media_jobs_dubbing_id", "media_jobs_synthetic_speech", "media_jobs_speech_model", "comment"])
      expect(mix[key], key).toBe(video[key]);
  });
});

describe("dubbing with the policy off", () => {
  it("clones every speaker, as before, naming no consent", async () => {
    const { save } = await dub({ required: false, granted: {} });
    expect(save.speakers.map((s) => [s.label, s.voiceKind, s.consent, s.reason])).toEqual([
      ["SPEAKER_00", "clone", null, undefined],
      ["SPEAKER_01", "clone", null, undefined],
    ]);
  }, 300_000);
});
