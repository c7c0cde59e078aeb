import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { redactUrl, type PresignedGrant } from "../../contracts/presigned";
import type { S3Client } from "../../contracts/s3-client";
import { translateStep, TranslationStoredSchema, type TranslationSave, type TranslationSource } from "../../contracts/services/translation";
import { stepSpec } from "../../contracts/services/types";
import { ApertiumCliEngine } from "../../gpu-runner/engines/translation/apertium-cli";
import { createTranslationHandler } from "../../gpu-runner/services/translation/handler";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { FakePlatform } from "../support/fake-platform";
import { localS3Client, makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import { presign } from "../support/presign";

/**
 * The translation runner step with real Apertium (the command) against a fake platform and a local
 * S3: cue-locked segments, subtitles with one cue per segment, the glossary protected, the save.
 */

const BUCKET = "translation-test";
const KEYS = { srt: "out/txt_a/transcripts/transcript.es.srt", vtt: "out/txt_a/transcripts/transcript.es.vtt" };
const SOURCE: TranslationSource = {
  textSourceId: "txt_a",
  language: "en",
  durationSec: 9,
  revision: 3,
  sourceLayer: "current",
  segments: [
    { id: 0, start: 0, end: 2.5, text: "Good morning and welcome to the kitchen." },
    { id: 1, start: 2.5, end: 6.25, text: "Today we bake bread with Kubernetes." },
    { id: 4, start: 6.25, end: 9, text: "" },
  ],
  speakers: [],
  glossary: [{ term: "kubernetes", preferred: "Kubernetes" }],
};

let s3: LocalS3;
let client: S3Client;
let ctx: TestContext | undefined;
beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = localS3Client(s3);
});
afterAll(async () => s3?.close());
afterEach(async () => {
  await ctx?.dispose();
  ctx = undefined;
});

/** A bucket job (keys in the storage grant's bucket), or an s3_presigned one (the grant's `srt` and `vtt` URLs). */
async function run(source = SOURCE, presigned?: PresignedGrant) {
  const platform = new FakePlatform({});
  platform.answers = {
    "translation.source": () => source,
    "translation.save": (b) => ({ translationId: "trl_a", segmentCount: (b as TranslationSave).segments.length }),
  };
  const c = await makeHandlerContext({
    input: {
      textSourceId: "txt_a",
      translationId: "trl_a",
      sourceLanguage: "en",
      sourceLanguageInferred: false,
      targetLanguage: "es",
      languageKey: "es",
      sourceLayer: "current",
      connectionId: presigned ? null : "stc_test",
      bucket: presigned ? null : BUCKET,
      resolvedOutputKeys: presigned ? { srt: redactUrl(presigned.outputUrls["srt"]!), vtt: redactUrl(presigned.outputUrls["vtt"]!) } : KEYS,
      engine: { backend: "apertium", model: null, pair: "eng-spa" },
    },
    storage: presigned ? null : storageGrant(s3, BUCKET),
    ...(presigned ? { presigned } : {}),
    platform,
    step: stepSpec("translation", translateStep),
    stored: TranslationStoredSchema,
  });
  ctx = c;
  const result = await createTranslationHandler({ createEngine: () => new ApertiumCliEngine() })(c);
  return { result, platform, save: platform.callsOf("translation.save")[0] as TranslationSave, report: c.report };
}

describe("translation handler", () => {
  it("keeps every segment's id, start and end, and translates its text", async () => {
    const { save } = await run();
    expect(save.segments.map(({ id, start, end }) => ({ id, start, end }))).toEqual(
      SOURCE.segments.map(({ id, start, end }) => ({ id, start, end })),
    );
    expect(save.segments[0]!.text).toMatch(/^Buenos días/);
    expect(save.segments[2]!.text).toBe("");
    expect(save.segments.map((s) => s.sourceText)).toEqual(SOURCE.segments.map((s) => s.text));
  });

  it("keeps each segment's speaker on a diarized transcript", async () => {
    const speakers = ["SPEAKER_00", "SPEAKER_01", "SPEAKER_00"];
    const { save } = await run({ ...SOURCE, segments: SOURCE.segments.map((seg, i) => ({ ...seg, speaker: speakers[i]! })) });
    expect(save.segments.map((seg) => seg.speaker)).toEqual(speakers);
  });

  it("names the source's speakers in the subtitles: SRT at each turn, WebVTT on every cue", async () => {
    const segments = SOURCE.segments.map((seg, i) => ({ ...seg, speaker: i === 0 ? "SPEAKER_00" : "SPEAKER_01" }));
    await run({ ...SOURCE, segments, speakers: [{ label: "SPEAKER_00", name: "Ada" }] });
    const srt = await (await client.getObject(BUCKET, KEYS.srt)).text();
    const vtt = await (await client.getObject(BUCKET, KEYS.vtt)).text();
    expect(srt).toMatch(/00:00:02,500\nAda: Buenos/);
    expect(srt).toMatch(/00:00:06,250\nSPEAKER_01: /);
    expect(vtt).toMatch(/<v Ada>Buenos/);
    expect(vtt).toMatch(/<v SPEAKER_01>/);
  });

  it("writes the glossary term's preferred spelling and reports nothing missing", async () => {
    const { save } = await run();
    expect(save.segments[1]!.text).toContain("Kubernetes");
    expect(save.glossary).toEqual({ termsProtected: 1, missing: [] });
  });

  it("writes SRT and VTT with one cue per non-empty segment at the segment's times", async () => {
    await run();
    const srt = await (await client.getObject(BUCKET, KEYS.srt)).text();
    const vtt = await (await client.getObject(BUCKET, KEYS.vtt)).text();
    expect(srt.match(/-->/g)).toHaveLength(2);
    expect(srt).toContain("00:00:00,000 --> 00:00:02,500");
    expect(srt).toContain("00:00:02,500 --> 00:00:06,250");
    expect(vtt.startsWith("WEBVTT")).toBe(true);
    expect(vtt).toContain("00:00:02.500 --> 00:00:06.250");
  });

  it("reports its four stages and returns the spec's resultSummary", async () => {
    const { result, report } = await run();
    expect(report.timeline()).toEqual([
      "load_transcription:started",
      "load_transcription:completed",
      "translate:started",
      "translate:completed",
      "upload_subtitles:started",
      "upload_subtitles:completed",
      "save_translation:started",
      "save_translation:completed",
    ]);
    expect(result).toEqual({
      translationId: "trl_a",
      textSourceId: "txt_a",
      sourceLanguage: "en",
      targetLanguage: "es",
      languageKey: "es",
      sourceLayer: "current",
      segmentCount: 3,
      durationSec: 9,
      translationBackend: "apertium",
      model: "apertium:eng-spa",
    });
  });

  it("gives the same text as the bare engine for the same segment", async () => {
    const { save } = await run();
    const bare = await new ApertiumCliEngine().translate({
      source: "en",
      target: "es",
      texts: [SOURCE.segments[0]!.text],
      signal: AbortSignal.timeout(30_000),
    });
    expect(save.segments[0]!.text).toBe(bare[0]);
  });

  it("fails with no_segments, not retryable, when every segment is empty", async () => {
    await expect(run({ ...SOURCE, segments: [{ id: 0, start: 0, end: 1, text: " " }] })).rejects.toMatchObject({
      code: "no_segments",
      retryable: false,
    });
  });
});

describe("translation of an s3_presigned job", () => {
  it("writes SRT and VTT through the job's srt and vtt URLs and saves them under their redacted URLs", async () => {
    const outputUrls = {
      srt: await presign(s3, "PUT", BUCKET, "presigned/talk.es.srt"),
      vtt: await presign(s3, "PUT", BUCKET, "presigned/talk.es.vtt"),
    };
    const { save } = await run(SOURCE, { sourceUrl: null, outputUrls });
    expect(await (await client.getObject(BUCKET, "presigned/talk.es.srt")).text()).toMatch(/^1\r?\n00:00:00,000 --> 00:00:02,500/);
    expect(await (await client.getObject(BUCKET, "presigned/talk.es.vtt")).text()).toMatch(/^WEBVTT/);
    expect(save.outputKeys).toEqual({ srt: redactUrl(outputUrls.srt), vtt: redactUrl(outputUrls.vtt) });
  });
});
