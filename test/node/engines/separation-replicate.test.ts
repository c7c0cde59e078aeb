import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createSeparationEngine } from "../../../gpu-runner/engines/separation/factory";
import { StepFailure } from "../../../contracts/step-failure";
import { useFixture } from "../../support/engine-conformance";
import { DEMUCS_VERSION } from "../../support/fakes/replicate";
import { engineEnv } from "../../support/hosted-fakes";
import { rejectionOf } from "../../support/rejection";
import { REPLICATE, rmsDb, SPEECH } from "../../support/separation-backends";

/** Replicate's predictions API with ryan5453/demucs; shared behaviour is in separation.conformance.test.ts. */
const h = useFixture(REPLICATE.start);
let n = 0;
async function separate(engine = h().engine(), audioPath = h().stereo) {
  const id = ++n;
  const out = { vocalsOut: path.join(h().dir, `r-vocals-${id}.flac`), backgroundOut: path.join(h().dir, `r-background-${id}.flac`) };
  await engine.separate({ audioPath, speech: SPEECH, duckDb: 18, ...out, signal: AbortSignal.timeout(30_000) });
  return out;
}
const created = () =>
  h()
    .fake.requests.find((r) => r.method === "POST")!
    .json() as { version: string; input: Record<string, unknown> };
const INSIDE = [1.2, 2.8] as const;

describe("replicate separation engine", () => {
  it("creates a prediction for the pinned Demucs version asking for the vocals stem and its complement as FLAC, unclipped by rescaling", async () => {
    await separate();
    const req = h().fake.requests[0]!;
    expect(req.path).toBe("/v1/predictions");
    expect(req.headers.authorization).toBe("Bearer r8-token");
    expect(created()).toMatchObject({
      version: DEMUCS_VERSION,
      input: { model: "htdemucs", stem: "vocals", output_format: "flac", clip_mode: "clamp" },
    });
  });

  it("sends a FLAC source inline as MP3", async () => {
    await separate();
    expect(String(created().input.audio)).toMatch(/^data:audio\/mpeg;base64,(SUQz|\/\+)/);
  });

  it("sends an MP3 source as it is", async () => {
    await separate(h().engine(), h().clip);
    expect(created().input.audio).toBe(`data:audio/mpeg;base64,${(await readFile(h().clip)).toString("base64")}`);
  });

  it("runs the Demucs weights REPLICATE_SEPARATION_DEMUCS names, and says so in its method", async () => {
    const engine = h().engine({ REPLICATE_SEPARATION_DEMUCS: "htdemucs_ft" });
    await separate(engine);
    expect(created().input.model).toBe("htdemucs_ft");
    expect(engine.method).toContain("htdemucs_ft");
  });

  it("is unavailable when REPLICATE_SEPARATION_DEMUCS names weights Demucs does not have", () => {
    expect(() => h().engine({ REPLICATE_SEPARATION_DEMUCS: "spleeter" })).toThrow(
      expect.objectContaining({ code: "engine_unavailable", message: expect.stringContaining("REPLICATE_SEPARATION_DEMUCS must be") }),
    );
  });

  it("runs the model the platform names instead of the default", async () => {
    h().fake.version("v-custom", "someone/demucs", (input) => h().fake.demucs(input));
    const engine = createSeparationEngine("replicate", engineEnv(h()), { model: "someone/demucs:v-custom" });
    await separate(engine);
    expect(created().version).toBe("v-custom");
    expect(engine.method).toContain("someone/demucs:v-custom");
  });

  it("fetches the stems from the file host without the API token", async () => {
    await separate();
    const fetched = h().fake.files.requests;
    expect(fetched.map((r) => path.basename(r.path)).sort()).toEqual(["no_vocals.flac", "vocals.flac"]);
    expect(fetched.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it("puts the accompaniment stem in the background inside speech stretches", async () => {
    const out = await separate();
    // The fake's no_vocals is half the source: 6 dB down.
    expect(await rmsDb(out.backgroundOut, ...INSIDE)).toBeCloseTo((await rmsDb(h().stereo, ...INSIDE)) - 6.02, 0);
    expect(await rmsDb(out.vocalsOut, ...INSIDE)).toBeCloseTo((await rmsDb(h().stereo, ...INSIDE)) - 6.02, 0);
  });

  it("sums the other stems into the accompaniment when the model answers every stem", async () => {
    h().fake.version("v-all", "someone/demucs-all-stems", (input) => h().fake.demucs({ ...input, stem: "none" }));
    const out = await separate(createSeparationEngine("replicate", engineEnv(h()), { model: "someone/demucs-all-stems:v-all" }));
    expect(h().fake.files.requests).toHaveLength(4);
    expect(await rmsDb(out.backgroundOut, ...INSIDE)).toBeCloseTo((await rmsDb(h().stereo, ...INSIDE)) - 6.02, 0);
  });

  it("fails, naming engine and model, when the output has no vocals stem", async () => {
    h().fake.version("v-none", "someone/not-demucs", () => ({ drums: "http://127.0.0.1:1/drums.flac" }));
    const engine = createSeparationEngine("replicate", engineEnv(h()), { model: "someone/not-demucs:v-none" });
    const f = await rejectionOf(separate(engine), StepFailure);
    expect(f.message).toBe("replicate (someone/not-demucs:v-none): output has no vocals stem");
  });
});
