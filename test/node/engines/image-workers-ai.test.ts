import { describe, expect, it } from "vitest";
import { useFixture } from "../../support/engine-conformance";
import { PROMPT, WORKERS_AI } from "../../support/image-backends";

/** Workers AI's REST format for flux-1-schnell; shared behaviour is in image.conformance.test.ts. */
const h = useFixture(WORKERS_AI.start);

describe("workers-ai image engine", () => {
  it("POSTs { prompt, steps } to accounts/{account}/ai/run/@cf/black-forest-labs/flux-1-schnell with the API token", async () => {
    await h()
      .engine()
      .generate({ ...h().request(), signal: AbortSignal.timeout(20_000) });
    const req = h().fake.requests[0]!;
    expect(req.path).toBe("/client/v4/accounts/acc123/ai/run/@cf/black-forest-labs/flux-1-schnell");
    expect(req.headers.authorization).toBe("Bearer cf-token");
    expect(req.json()).toEqual({ prompt: PROMPT, steps: 4 });
  });

  it("takes steps from WORKERS_AI_IMAGE_STEPS, capped at the model's 8", async () => {
    await h()
      .engine({ WORKERS_AI_IMAGE_STEPS: "20" })
      .generate({ ...h().request(), signal: AbortSignal.timeout(20_000) });
    expect(h().fake.requests[0]!.json()).toMatchObject({ steps: 8 });
  });

  it("records the model's own 1024×1024 output beside the cropped cover", async () => {
    const cover = await h()
      .engine()
      .generate({ ...h().request({ width: 1536, height: 1024 }), signal: AbortSignal.timeout(20_000) });
    expect(cover.details).toEqual({ steps: 4, variant: 0, generated: { width: 1024, height: 1024, format: "jpeg" } });
  });

  it("fails naming engine and model when the envelope carries no image", async () => {
    h().fake.model("@cf/black-forest-labs/flux-1-schnell", () => null);
    await expect(
      h()
        .engine()
        .generate({ ...h().request(), signal: AbortSignal.timeout(20_000) }),
    ).rejects.toMatchObject({
      message: "workers-ai (@cf/black-forest-labs/flux-1-schnell): answered without an image: no result",
    });
  });

  it("fails naming engine and model when the image cannot be decoded", async () => {
    h().fake.model("@cf/black-forest-labs/flux-1-schnell", () => ({ image: Buffer.from("not a jpeg").toString("base64") }));
    await expect(
      h()
        .engine()
        .generate({ ...h().request(), signal: AbortSignal.timeout(20_000) }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/^workers-ai \(@cf\/black-forest-labs\/flux-1-schnell\): answered an image that cannot be decoded: /),
    });
  });
});
