import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SeparationEngine } from "../../../gpu-runner/engines/separation/interface";
import { abortAfter, hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import {
  audioFacts,
  HOSTED_SEPARATION_BACKENDS,
  rmsDb,
  SEPARATION_BACKENDS,
  SOURCE_SEC,
  SPEECH,
  type SeparationHarness,
} from "../../support/separation-backends";

/**
 * What every separation engine does, whatever its backend: the local ffmpeg filters, and each hosted
 * API against its fake, on a made-up film sound (a drone throughout, a warble where SPEECH says
 * someone speaks). Details of one backend live in separation-<backend>.test.ts.
 */
let n = 0;
async function separate(h: SeparationHarness, engine: SeparationEngine, audioPath = h.stereo, signal = AbortSignal.timeout(30_000)) {
  const id = ++n;
  const out = { vocalsOut: path.join(h.dir, `vocals-${id}.flac`), backgroundOut: path.join(h.dir, `background-${id}.flac`) };
  await engine.separate({ audioPath, speech: SPEECH, duckDb: 18, ...out, signal });
  return out;
}

/** Inside the first speech stretch, and in the silence between the stretches (edges left out). */
const INSIDE = [1.2, 2.8] as const;
const OUTSIDE = [3.2, 4.3] as const;

describe.each(SEPARATION_BACKENDS)("$name separation engine", (backend) => {
  const h = useFixture(backend.start);

  it("records its engine and a method that says what it does", () => {
    const engine = h().engine();
    expect(engine.engine).toBe(backend.recordedAs);
    expect(engine.method).toContain(backend.methodMentions);
  });

  it("writes vocals and background as 48 kHz FLAC with the source's channels and duration within 50 ms", async () => {
    const out = await separate(h(), h().engine());
    for (const file of [out.vocalsOut, out.backgroundOut]) {
      const facts = await audioFacts(file);
      expect(facts).toMatchObject({ codec: "flac", sampleRate: 48_000, channels: 2 });
      expect(Math.abs(facts.durationSec - SOURCE_SEC)).toBeLessThanOrEqual(0.05);
    }
  });

  it("keeps a mono source mono", async () => {
    const out = await separate(h(), h().engine(), h().mono);
    expect((await audioFacts(out.vocalsOut)).channels).toBe(1);
    expect((await audioFacts(out.backgroundOut)).channels).toBe(1);
  });

  it("leaves the background as the source, and the vocals silent, where nobody speaks", async () => {
    const out = await separate(h(), h().engine());
    expect(await rmsDb(out.backgroundOut, ...OUTSIDE)).toBeCloseTo(await rmsDb(h().stereo, ...OUTSIDE), 0);
    expect(await rmsDb(out.vocalsOut, ...OUTSIDE)).toBe(-Infinity);
  });

  it("takes speech out of the background, or lowers it, inside speech stretches", async () => {
    const out = await separate(h(), h().engine());
    expect(await rmsDb(out.backgroundOut, ...INSIDE)).toBeLessThan((await rmsDb(h().stereo, ...INSIDE)) - 5);
  });

  it("puts the speech in the vocals, louder there than the background alone", async () => {
    const out = await separate(h(), h().engine());
    expect(await rmsDb(out.vocalsOut, ...INSIDE)).toBeGreaterThan(await rmsDb(h().stereo, ...OUTSIDE));
  });

  it("stops when the task is cancelled, rejecting with the signal's reason", async () => {
    const source = await h().hang();
    const reason = new Error("cancel requested");
    await expect(separate(h(), h().engine(), source, abortAfter(100, reason))).rejects.toBe(reason);
  });
});

describe.each(HOSTED_SEPARATION_BACKENDS)("$name separation engine over HTTP", (backend) => {
  const h = useFixture(backend.start);

  hostedTransportCases(h, {
    name: backend.name,
    model: backend.methodMentions,
    run: (engine, signal) => separate(h(), engine, h().clip, signal),
    expectResult: (r) => expect(r).toMatchObject({ vocalsOut: expect.any(String), backgroundOut: expect.any(String) }),
  });

  requiredSettingCase("separation", h);
});
