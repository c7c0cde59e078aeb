import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { openAIImageSize } from "../../../gpu-runner/engines/image/openai-compatible";
import { useFixture } from "../../support/engine-conformance";
import { OPENAI_COMPATIBLE, PROMPT } from "../../support/image-backends";

/** OpenAI's images/generations format; shared behaviour is in image.conformance.test.ts. */
const h = useFixture(OPENAI_COMPATIBLE.start);
const signal = () => AbortSignal.timeout(20_000);

describe("openai-compatible image engine", () => {
  it("POSTs { model, prompt, n: 1, size, response_format: b64_json } with the API key, asking dall-e-3 for its nearest size", async () => {
    const cover = await h()
      .engine()
      .generate({ ...h().request({ width: 1536, height: 1024 }), signal: signal() });
    const req = h().fake.requests[0]!;
    expect(req.path).toBe("/v1/images/generations");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.json()).toEqual({ model: "dall-e-3", prompt: PROMPT, n: 1, size: "1792x1024", response_format: "b64_json" });
    expect(cover.details).toMatchObject({ size: "1792x1024", generated: { width: 1792, height: 1024, format: "png" } });
    expect(await sharp(cover.jpeg).metadata()).toMatchObject({ format: "jpeg", width: 1536, height: 1024 });
  });

  it("asks a self-hosted model for the exact size, from OPENAI_COMPAT_IMAGE_MODEL", async () => {
    await h()
      .engine({ OPENAI_COMPAT_IMAGE_MODEL: "stablediffusion" })
      .generate({ ...h().request({ width: 1024, height: 1536 }), signal: signal() });
    expect(h().fake.requests[0]!.json()).toMatchObject({ model: "stablediffusion", size: "1024x1536", response_format: "b64_json" });
  });

  it("sends gpt-image models no response_format (they always answer base64)", async () => {
    await h()
      .engine({ OPENAI_COMPAT_IMAGE_MODEL: "gpt-image-1" })
      .generate({ ...h().request({ width: 1024, height: 1536 }), signal: signal() });
    expect(h().fake.requests[0]!.json()).toEqual({ model: "gpt-image-1", prompt: PROMPT, n: 1, size: "1024x1536" });
  });

  it("picks OpenAI's sizes by aspect ratio", () => {
    expect(openAIImageSize("dall-e-3", 1024, 1536)).toBe("1024x1792");
    expect(openAIImageSize("dall-e-3", 1024, 1024)).toBe("1024x1024");
    expect(openAIImageSize("gpt-image-1", 1920, 1088)).toBe("1536x1024");
    expect(openAIImageSize("flux-dev", 1920, 1088)).toBe("1920x1088");
  });

  it("fails naming engine and model when the answer has no b64_json", async () => {
    h().fake.imagesAnswer = { created: 1, data: [{ url: "http://127.0.0.1:9/x.png" }] };
    await expect(
      h()
        .engine()
        .generate({ ...h().request(), signal: signal() }),
    ).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(/^openai-compatible \(dall-e-3\): answered without a b64_json image: /),
    });
    expect(h().fake.requests).toHaveLength(1);
  });
});
