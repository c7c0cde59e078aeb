import path from "node:path";
import { describe, expect, it } from "vitest";
import { useFixture } from "../../support/engine-conformance";
import { LOCAL_FILTERS, rmsDb, SPEECH } from "../../support/separation-backends";

/** The ffmpeg filters; shared behaviour is in separation.conformance.test.ts. */
const h = useFixture(LOCAL_FILTERS.start);
let n = 0;
async function separate(duckDb: number, speech = SPEECH) {
  const id = ++n;
  const out = { vocalsOut: path.join(h().dir, `l-vocals-${id}.flac`), backgroundOut: path.join(h().dir, `l-background-${id}.flac`) };
  await h()
    .engine()
    .separate({ audioPath: h().stereo, speech, duckDb, ...out, signal: AbortSignal.timeout(30_000) });
  return out;
}
const INSIDE = [1.2, 2.8] as const;

describe("local-filters separation engine", () => {
  it.each([6, 18, 30])("ducks the whole background by duckDb (%i dB) inside speech stretches: lowered, not removed", async (duckDb) => {
    const out = await separate(duckDb);
    expect(await rmsDb(out.backgroundOut, ...INSIDE)).toBeCloseTo((await rmsDb(h().stereo, ...INSIDE)) - duckDb, 0);
  });

  it("keeps the source in the speech band as vocals inside speech stretches", async () => {
    const out = await separate(18);
    // Drone (220 Hz) and warble (1 kHz) are both inside 100 Hz–8 kHz: the vocals are the source there.
    expect(await rmsDb(out.vocalsOut, ...INSIDE)).toBeCloseTo(await rmsDb(h().stereo, ...INSIDE), 0);
  });

  it("takes a long video's hundreds of speech stretches (ffmpeg refuses a flat sum of 100 terms or more)", async () => {
    // The fixture's stretch, then 300 more after the clip's end: the sum has 301 terms, the clip the same ducking.
    const many = [...SPEECH, ...Array.from({ length: 300 }, (_, i) => ({ start: 100 + i, end: 100.5 + i }))];
    const out = await separate(18, many);
    expect(await rmsDb(out.backgroundOut, ...INSIDE)).toBeCloseTo((await rmsDb(h().stereo, ...INSIDE)) - 18, 0);
  });
});
