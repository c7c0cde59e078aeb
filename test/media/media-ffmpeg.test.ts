import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  analyseVideo,
  compressChunk,
  cutChunk,
  detectSilences,
  extractAudio,
  planChunks,
  planDenoise,
  probe,
  UnreadableMediaError,
} from "../../gpu-runner/media/ffmpeg";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import { garbageFile, speechAudioOnly, speechVideo } from "../support/media-fixtures";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "media-ffmpeg-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const out = (name: string) => path.join(dir, name);

/** Tone, silence, tone: one silence known to be at [1, 2] s. */
async function toneSilenceTone(): Promise<string> {
  const file = out("tone-silence-tone.wav");
  await runToolOk("ffmpeg", [
    "-v",
    "error",
    "-y",
    "-f",
    "lavfi",
    ...INPUT_GUARD,
    "-i",
    "sine=f=440:d=1:r=16000",
    "-f",
    "lavfi",
    ...INPUT_GUARD,
    "-i",
    "anullsrc=r=16000:cl=mono:d=1",
    "-f",
    "lavfi",
    ...INPUT_GUARD,
    "-i",
    "sine=f=440:d=1:r=16000",
    "-filter_complex",
    "[0][1][2]concat=n=3:v=0:a=1",
    "-ac",
    "1",
    file,
  ]);
  return file;
}

describe("probe", () => {
  it("reports duration, format and streams of a video", async () => {
    const p = await probe(await speechVideo());
    expect(p.durationSec).toBeCloseTo(28.8, 0);
    expect(p).toMatchObject({ hasAudio: true, hasVideo: true });
    expect(p.streams.map((s) => s.codecName)).toEqual(["h264", "aac"]);
  });

  it("reports an audio-only file as having no video", async () => {
    expect(await probe(await speechAudioOnly())).toMatchObject({ hasAudio: true, hasVideo: false });
  });

  it("throws UnreadableMediaError for a file that is not media", async () => {
    await expect(probe(await garbageFile())).rejects.toBeInstanceOf(UnreadableMediaError);
  });
});

describe("audio extraction and conditioning", () => {
  it("extracts 16 kHz mono PCM WAV", async () => {
    const wav = out("extracted.wav");
    await extractAudio(await speechVideo(), wav);
    const res = await runToolOk(
      "ffprobe",
      ["-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels", "-of", "csv=p=0", ...INPUT_GUARD, "-i", wav],
      { collectStdout: true },
    );
    expect(res.stdout.trim()).toBe("pcm_s16le,16000,1");
  });

  it("denoise keeps to a high-pass for clean audio or engines with their own noise reduction", () => {
    expect(planDenoise(Number.NEGATIVE_INFINITY, false)).toMatchObject({ spectral: false, filter: "highpass=f=80" });
    expect(planDenoise(-35, true)).toMatchObject({ spectral: false, filter: "highpass=f=80" });
  });

  it("denoise adds spectral reduction at the measured floor for noisy audio", () => {
    expect(planDenoise(-38.9, false)).toMatchObject({ spectral: true, filter: "highpass=f=80,afftdn=nr=12:nf=-39" });
  });

  it("measures a finite noise floor for noisy audio while extracting it", async () => {
    const noisy = out("noise.wav");
    await runToolOk("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      ...INPUT_GUARD,
      "-i",
      "anoisesrc=c=pink:a=0.05:r=44100:d=2",
      "-ac",
      "2",
      noisy,
    ]);
    const { noiseFloorDb } = await extractAudio(noisy, out("noise.extracted.wav"));
    expect(noiseFloorDb).toBeGreaterThan(-60);
    expect(noiseFloorDb).toBeLessThan(0);
  });

  it("finds no noise floor in digital silence", async () => {
    const silent = out("silent.wav");
    await runToolOk("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", ...INPUT_GUARD, "-i", "anullsrc=r=16000:cl=mono", "-t", "1", silent]);
    const { noiseFloorDb } = await extractAudio(silent, out("silent.extracted.wav"));
    expect(noiseFloorDb).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe("silences and chunk planning", () => {
  it("detects a silence where there is one", async () => {
    const silences = await detectSilences(await toneSilenceTone());
    expect(silences).toHaveLength(1);
    expect(silences[0]!.start).toBeCloseTo(1, 1);
    expect(silences[0]!.end).toBeCloseTo(2, 1);
  });

  it("cuts at the midpoint of the latest silence within the maximum chunk length", () => {
    const chunks = planChunks(
      30,
      [
        { start: 4, end: 5 },
        { start: 8, end: 9 },
        { start: 14, end: 16 },
        { start: 21, end: 22 },
      ],
      { maxChunkSec: 10 },
    );
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 8.5],
      [8.5, 15],
      [15, 21.5],
      [21.5, 30],
    ]);
  });

  it("forces a cut at the limit with an overlap when a stretch has no silence", () => {
    const chunks = planChunks(25, [], { maxChunkSec: 10, overlapSec: 1 });
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 10],
      [9, 19],
      [18, 25],
    ]);
  });

  it("keeps a short source in one chunk", () => {
    expect(planChunks(8, [{ start: 3, end: 4 }], { maxChunkSec: 10 })).toEqual([{ index: 0, start: 0, end: 8 }]);
  });

  it("for any silences, chunks cover the source in order and none exceeds the maximum", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 4000, noNaN: true }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.05, max: 3, noNaN: true })), { maxLength: 200 }),
        fc.integer({ min: 5, max: 300 }),
        (duration, raw, max) => {
          const silences = raw.map(([at, len]) => ({ start: at * duration, end: Math.min(duration, at * duration + len) }));
          const chunks = planChunks(duration, silences, { maxChunkSec: max });
          expect(chunks[0]!.start).toBe(0);
          expect(chunks.at(-1)!.end).toBe(duration);
          for (let i = 0; i < chunks.length; i++) {
            const c = chunks[i]!;
            expect(c.index).toBe(i);
            expect(c.end - c.start).toBeLessThanOrEqual(max + 1e-9);
            if (i > 0) expect(c.start).toBeLessThanOrEqual(chunks[i - 1]!.end);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("cuts a time range out of a WAV sample-accurately", async () => {
    const chunk = out("cut.wav");
    await cutChunk(await toneSilenceTone(), { index: 0, start: 0.5, end: 2.25 }, chunk);
    expect((await probe(chunk)).durationSec).toBeCloseTo(1.75, 2);
  });
});

describe("compression for network engines", () => {
  it.each(["mp3", "ogg"] as const)("compresses a chunk to %s at ~32 kbps mono", async (format) => {
    const file = out(`chunk.${format}`);
    await compressChunk(await toneSilenceTone(), file, format);
    const p = await probe(file);
    expect(p.streams[0]!.codecName).toBe(format === "mp3" ? "mp3" : "opus");
    expect(p.durationSec).toBeCloseTo(3, 0);
  });
});

describe("video analysis", () => {
  it("returns one visual chunk per scene with luma and colour descriptors", async () => {
    const chunks = await analyseVideo(await speechVideo(), dir, 28.8);
    expect(chunks.map((c) => [Math.round(c.start), Math.round(c.end)])).toEqual([
      [0, 10],
      [10, 20],
      [20, 29],
    ]);
    for (const c of chunks) {
      expect(c.descriptors).toMatchObject({
        meanLuma: expect.any(Number),
        meanSaturation: expect.any(Number),
        dominantColour: expect.any(String),
      });
      expect(c.summary).toMatch(/^scene \d+ /);
    }
  });

  it("names the dominant colour of a single-colour picture", async () => {
    const red = out("red.mp4");
    await runToolOk("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      ...INPUT_GUARD,
      "-i",
      "color=c=red:s=64x64:r=5:d=2",
      "-pix_fmt",
      "yuv420p",
      red,
    ]);
    const [chunk] = await analyseVideo(red, dir, 2);
    expect(chunk!.descriptors.dominantColour).toBe("red");
  });
});
