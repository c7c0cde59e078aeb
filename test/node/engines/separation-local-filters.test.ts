import path from "node:path";
import { describe, expect, it } from "vitest";
import { useFixture } from "../../support/engine-conformance";
import { LOCAL_FILTERS, rmsDb, SPEECH } from "../../support/separation-backends";

/** The ffmpeg filters; shared behaviour is in separation.conformance.test.ts. */
const h = useFixture(LOCAL_FILTERS.start);
let n = 0;
async function separate(duckDb: number) {
  const id = ++n;
  const out = { vocalsOut: path.join(h().dir, `l-vocals-${id}.flac`), backgroundOut: path.join(h().dir, `l-background-${id}.flac`) };
  await h()
    .engine()
    .separate({ audioPath: h().stereo, speech: SPEECH, duckDb, ...out, signal: AbortSignal.timeout(30_000) });
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
});
