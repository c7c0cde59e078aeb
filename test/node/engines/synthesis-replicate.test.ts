import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { VoiceSpec } from "../../../gpu-runner/engines/synthesis/interface";
import { useFixture } from "../../support/engine-conformance";
import { XTTS_V2_VERSION } from "../../support/fakes/replicate";
import { FAKE_SECONDS_PER_WORD } from "../../support/fakes/synthesis";
import { REPLICATE } from "../../support/synthesis-backends";

/** XTTS-v2 over Replicate's predictions API; shared behaviour is in synthesis.conformance.test.ts. */
const h = useFixture(REPLICATE.start);
let n = 0;

async function voice(): Promise<{ voice: VoiceSpec; referencePath: string }> {
  const referencePath = path.join(h().dir, `ref-${++n}.wav`);
  const v = await h()
    .engine()
    .createVoice({ sampleWavPath: h().sample, language: "es", referenceOutPath: referencePath, signal: AbortSignal.timeout(20_000) });
  return { voice: v, referencePath };
}

const speak = (v: { voice: VoiceSpec; referencePath: string }, opts: { language?: string; rate?: number } = {}) =>
  h()
    .engine()
    .synthesize({
      text: "uno dos tres cuatro",
      language: opts.language ?? "es",
      voice: v.voice,
      referencePath: v.referencePath,
      ...(opts.rate ? { rate: opts.rate } : {}),
      outPath: path.join(h().dir, `out-${++n}.wav`),
      signal: AbortSignal.timeout(20_000),
    });

describe("replicate synthesis engine", () => {
  it("makes a clone voice without a request, recording the reference clip's digest and length", async () => {
    const v = await voice();
    expect(h().fake.requests).toHaveLength(0);
    expect(v.voice).toMatchObject({ kind: "clone", engine: "replicate", reference: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(v.voice.kind === "clone" && v.voice.reference.durationSec).toBeLessThanOrEqual(10);
  });

  it("creates an XTTS-v2 prediction with the text, the language and the reference clip inline", async () => {
    const v = await voice();
    await speak(v);
    const body = h().fake.requests[0]!.json() as { version: string; input: Record<string, unknown> };
    expect(body.version).toBe(XTTS_V2_VERSION);
    expect(body.input).toEqual({
      text: "uno dos tres cuatro",
      language: "es",
      cleanup_voice: false,
      speaker: `data:audio/wav;base64,${(await readFile(v.referencePath)).toString("base64")}`,
    });
  });

  it("downloads the output WAV from the file host without the API token", async () => {
    const r = await speak(await voice());
    const download = h().fake.files.requests[0]!;
    expect(download.headers.authorization).toBeUndefined();
    expect(r.durationSec).toBeCloseTo(4 * FAKE_SECONDS_PER_WORD, 2);
  });

  it("asks for Mandarin by XTTS-v2's name for it", async () => {
    const v = await voice();
    await speak(v, { language: "zh-CN" });
    expect((h().fake.requests[0]!.json() as { input: { language: string } }).input.language).toBe("zh-cn");
  });

  it("applies a rate as a tempo change, the model having no speed input", async () => {
    const r = await speak(await voice(), { rate: 1.25 });
    expect(r.durationSec).toBeCloseTo((4 * FAKE_SECONDS_PER_WORD) / 1.25, 1);
  });

  it("refuses a reference clip that is not the voice's, without a request", async () => {
    const v = await voice();
    await writeFile(v.referencePath, Buffer.from("RIFF-not-the-clip"));
    await expect(speak(v)).rejects.toMatchObject({
      retryable: false,
      message: expect.stringContaining("not the one this voice was made from"),
    });
    expect(h().fake.requests).toHaveLength(0);
  });
});
