import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { StepFailure } from "../../../contracts/step-failure";
import { createImageEngine } from "../../../gpu-runner/engines/image/factory";
import type { Cover, ImageEngine } from "../../../gpu-runner/engines/image/interface";
import { abortAfter, hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import { HOSTED_IMAGE_BACKENDS, IMAGE_BACKENDS, type CoverInput } from "../../support/image-backends";
import { rejectionOf } from "../../support/rejection";

/**
 * What every image engine does, whatever its backend: the local compositor, and each hosted API
 * against its fake. Format details of one backend live in image-<backend>.test.ts.
 */
const generate = (engine: ImageEngine, req: CoverInput, signal: AbortSignal = AbortSignal.timeout(30_000)) =>
  engine.generate({ ...req, signal });

const SIZES = [
  [1024, 1024],
  [1536, 1024],
  [1024, 1536],
] as const;

describe.each(IMAGE_BACKENDS)("$name image engine", (backend) => {
  const h = useFixture(backend.start);

  it("names its engine, model and kind", () => {
    expect(h().engine()).toMatchObject({ engine: backend.name, model: backend.model, kind: backend.kind });
  });

  it.each(SIZES)("returns a JPEG of exactly %i×%i", async (width, height) => {
    const cover = await generate(h().engine(), h().request({ width, height }));
    expect(cover.jpeg).toBeInstanceOf(Uint8Array);
    const meta = await sharp(cover.jpeg).metadata();
    expect(meta).toMatchObject({ format: "jpeg", width, height });
    expect(cover.details).toMatchObject(backend.kind === "compositor" ? { frameTime: 4.2 } : { variant: 0 });
  });

  it("stops when the task is cancelled, rejecting with the signal's reason", async () => {
    const wait = h().hang();
    const reason = new Error("cancel requested");
    const started = Date.now();
    await expect(generate(h().engine(), h().request(), abortAfter(wait, reason))).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("fails with a retryable error that names the engine and model", async () => {
    const engine = h().engine(h().breakIt());
    const f = await rejectionOf(generate(engine, h().request()), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: true });
    expect(f.message.startsWith(`${backend.name} (${backend.model}): `)).toBe(true);
  });
});

describe.each(HOSTED_IMAGE_BACKENDS)("$name image engine over HTTP", (backend) => {
  const h = useFixture(backend.start);

  hostedTransportCases(h, {
    name: backend.name,
    model: backend.model,
    run: (engine, signal) => engine.generate({ ...h().request(), signal }),
    expectResult: (r) => expect((r as Cover).jpeg.byteLength).toBeGreaterThan(1000),
  });

  requiredSettingCase("image", h);
});

describe("createImageEngine", () => {
  it("makes the local compositor when no engine is named", () => {
    expect(createImageEngine(undefined, {})).toMatchObject({ engine: "local-compositor", kind: "compositor" });
  });

  it("is unavailable for an engine it does not know, listing the ones it does", () => {
    expect(() => createImageEngine("midjourney", {})).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        message: "image engine midjourney is not known on this runner (known: local-compositor, workers-ai, replicate, openai-compatible)",
      }),
    );
  });
});
