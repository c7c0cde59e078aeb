import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { S3Client } from "../../contracts/s3-client";
import type { DubbedSegment, DubbingSave } from "../../contracts/services/dubbing";
import type { TranslationSource } from "../../contracts/services/translation";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { twoVoiceVideo } from "../support/dubbing-fixtures";
import { objectBytes, regenerateFrom, runBucketDub } from "../support/dubbing-run";
import { localS3Client } from "../support/handler-context";

/**
 * Regenerating a dub on real media and engines (gpu-runner/services/dubbing/regenerate.ts): the
 * two-voice conversation dubbed into Spanish, then dubbed again after one segment's text changed.
 */

const BUCKET = "regen-test";
const RATE = 48_000;
const CHANGED = 3;
let s3: LocalS3;
let client: S3Client;
let transcript: TranslationSource;
let first: Awaited<ReturnType<typeof runBucketDub>>;

/** The transcript with segment CHANGED's text edited. */
const edited = (): TranslationSource => ({
  ...transcript,
  revision: 2,
  segments: transcript.segments.map((s) =>
    s.id === CHANGED ? { ...s, text: "Yes, the sailors counted every bay of that coast by boat." } : s,
  ),
});

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = localS3Client(s3);
  const src = await twoVoiceVideo();
  transcript = src.transcript;
  await client.putObject(BUCKET, "src/talk.mp4", await readFile(src.video), "video/mp4");
  first = await runBucketDub({ s3, bucket: BUCKET, sourceKey: "src/talk.mp4", dubbingId: "dub_first", transcript });
}, 300_000);
afterAll(async () => s3?.close());

/** A speech artifact as 16-bit samples (decoded by ffmpeg, no resampling). */
async function speechSamples(key: string): Promise<Int16Array> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "regen-speech-"));
  const flac = path.join(dir, "speech.flac");
  await writeFile(flac, await objectBytes(client, BUCKET, key));
  const pcm = path.join(dir, "speech.pcm");
  await runToolOk("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    ...INPUT_GUARD,
    "-i",
    flac,
    "-f",
    "s16le",
    "-c:a",
    "pcm_s16le",
    pcm,
  ]);
  const buf = await readFile(pcm);
  return new Int16Array(buf.buffer, buf.byteOffset, buf.length / 2);
}

/** A mix artifact decoded to 16-bit stereo samples. */
async function decodedMix(key: string): Promise<Int16Array> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "regen-mix-"));
  const m4a = path.join(dir, "mix.m4a");
  await writeFile(m4a, await objectBytes(client, BUCKET, key));
  const pcm = path.join(dir, "mix.pcm");
  await runToolOk("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    ...INPUT_GUARD,
    "-i",
    m4a,
    "-f",
    "s16le",
    "-c:a",
    "pcm_s16le",
    pcm,
  ]);
  const buf = await readFile(pcm);
  return new Int16Array(buf.buffer, buf.byteOffset, buf.length / 2);
}

const regenerate = (dubbingId: string, over: { record?: DubbingSave | null; artifacts?: Partial<DubbingSave["artifacts"]> } = {}) => {
  const input = regenerateFrom("dub_first", first.save, first.platform);
  return runBucketDub({
    s3,
    bucket: BUCKET,
    sourceKey: "src/talk.mp4",
    dubbingId,
    transcript: edited(),
    previous: {
      input: { ...input, artifacts: { ...input.artifacts, ...over.artifacts } },
      record: over.record === undefined ? first.save : over.record,
    },
  });
};

describe("regenerating a dub after one segment's text changed", () => {
  let second: Awaited<ReturnType<typeof runBucketDub>>;
  beforeAll(async () => {
    second = await regenerate("dub_second");
  }, 300_000);

  it("speaks only the changed segment again and keeps every other segment's speech, saying so", () => {
    const others = first.save.segments.filter((s) => s.id !== CHANGED).map((s) => s.id);
    expect(second.save.regenerated).toEqual({
      fromDubbingId: "dub_first",
      mode: "partial",
      reused: { sourceAudio: true, separation: true, diarization: true, voices: ["SPEAKER_00", "SPEAKER_01"] },
      segmentsSynthesized: [CHANGED],
      segmentsReused: others,
    });
    expect(second.report.eventsOf("synthesize_speech").at(-1)?.details).toMatchObject({ spoken: 1, reused: others.length });
  });

  it("reuses the separation, the turns and the voices: no separation runs, no diarization engine, no voice is made", () => {
    expect(second.report.eventsOf("separate_audio")[0]?.event).toBe("skipped");
    expect(second.report.eventsOf("diarize").at(-1)?.details).toMatchObject({ source: "previous_dub", dubbingId: "dub_first" });
    expect(second.platform.callsOf("voices.create")).toHaveLength(0);
    expect(second.save.speakers.map((s) => [s.label, s.voiceId, s.voiceSource])).toEqual(
      first.save.speakers.map((s) => [s.label, s.voiceId, s.voiceSource]),
    );
  });

  it("records the kept segments exactly as the previous dub did, and the changed one with its new text", () => {
    const byId = (segs: readonly DubbedSegment[]) => new Map(segs.map((s) => [s.id, s]));
    const was = byId(first.save.segments);
    for (const s of second.save.segments) if (s.id !== CHANGED) expect(s).toEqual(was.get(s.id));
    const changed = byId(second.save.segments).get(CHANGED)!;
    expect(changed.speech).toBe("spoken");
    expect(changed.text).not.toBe(was.get(CHANGED)!.text);
  });

  it("the new speech track is bit-identical to the previous one outside the changed segment's slot, and new speech inside it", async () => {
    const before = await speechSamples(first.save.artifacts.speech!);
    const after = await speechSamples(second.save.artifacts.speech!);
    expect(after.length).toBe(before.length);
    const seg = second.save.segments.find((s) => s.id === CHANGED)!;
    const next = second.save.segments.find((s) => s.id === CHANGED + 1)!;
    const [from, to] = [Math.round(seg.sourceStart * RATE), Math.round(next.sourceStart * RATE)];
    let differentOutside = 0;
    for (let i = 0; i < before.length; i++) if ((i < from || i >= to) && before[i] !== after[i]) differentOutside++;
    expect(differentOutside).toBe(0);
    const inside = after.subarray(from, to);
    expect(inside.some((v, i) => v !== before[from + i])).toBe(true);
    expect(inside.reduce((peak, v) => Math.max(peak, Math.abs(v)), 0)).toBeGreaterThan(1000);
  });

  it("keeps the previous mix outside the changed segment's stretch (its frames spliced, not encoded again), new sound inside it", async () => {
    const before = await decodedMix(first.save.artifacts.mix!);
    const after = await decodedMix(second.save.artifacts.mix!);
    expect(after.length).toBe(before.length);
    const seg = second.save.segments.find((s) => s.id === CHANGED)!;
    // The spliced frames reach about 0.5 s beyond the slot on each side (mix-splice.ts); both channels interleaved.
    const [from, to] = [Math.round((seg.sourceStart - 1.6) * RATE) * 2, Math.round((seg.slotEnd + 1.6) * RATE) * 2];
    let differentOutside = 0;
    for (let i = 0; i < before.length; i++) if ((i < from || i >= to) && before[i] !== after[i]) differentOutside++;
    expect(differentOutside).toBe(0);
    expect(after.subarray(from, to).some((v, i) => v !== before[from + i])).toBe(true);
    expect(second.save.loudness.gainDb).toBe(first.save.loudness.gainDb);
  });

  it("mixes and renders as any dub: the video as long as the source, the mix at about -16 LUFS", () => {
    expect(Math.abs(second.save.sync.durationDeltaSec)).toBeLessThanOrEqual(0.1);
    expect(second.save.loudness.integratedLufs).toBeGreaterThan(-17.5);
    expect(second.save.loudness.integratedLufs).toBeLessThan(-14.5);
    expect(
      Object.keys(second.save.artifacts).every((name) =>
        second.save.artifacts[name as keyof DubbingSave["artifacts"]]!.startsWith("out/dub_second/"),
      ),
    ).toBe(true);
  });
});

describe("regenerating a dub whose previous audio cannot be used", () => {
  it("a previous artifact gone from the bucket: the dub is made in full, and the record says why", async () => {
    const { save, report } = await regenerate("dub_gone", { artifacts: { background: "out/dub_first/deleted.flac" } });
    expect(save.regenerated).toMatchObject({ fromDubbingId: "dub_first", mode: "full", segmentsReused: [] });
    expect(save.regenerated?.reason).toMatch(/background artifact cannot be read/);
    expect(save.regenerated?.segmentsSynthesized).toEqual(save.segments.map((s) => s.id));
    expect(report.eventsOf("separate_audio").at(-1)?.event).toBe("completed");
    expect(save.segments.every((s) => s.speech === "spoken")).toBe(true);
  }, 300_000);

  it("a previous speech track of another length (the source changed): the dub is made in full, and the record says why", async () => {
    await client.putObject(BUCKET, "out/dub_first/short-speech.flac", await shortSpeechTrack(), "audio/flac");
    const { save } = await regenerate("dub_short", { artifacts: { speech: "out/dub_first/short-speech.flac" } });
    expect(save.regenerated?.mode).toBe("full");
    expect(save.regenerated?.reason).toMatch(/previous speech track has \d+ samples, the source \d+/);
    expect(save.segments.every((s) => s.speech === "spoken")).toBe(true);
  }, 300_000);

  it("the previous record gone since create: the dub is made in full, and the record says why", async () => {
    const { save } = await regenerate("dub_norecord", { record: null });
    expect(save.regenerated).toMatchObject({ mode: "full", reason: "dubbing dub_first has no saved record any more" });
  }, 300_000);
});

/** Two seconds of 48 kHz mono silence as FLAC: a speech track, but not this source's length. */
async function shortSpeechTrack() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "regen-short-"));
  const out = path.join(dir, "short.flac");
  await runToolOk("ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    ...INPUT_GUARD,
    "-i",
    "anullsrc=r=48000:cl=mono",
    "-t",
    "2",
    "-c:a",
    "flac",
    out,
  ]);
  return readFile(out);
}
