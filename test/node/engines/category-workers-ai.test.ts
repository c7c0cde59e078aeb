import { describe, expect, it } from "vitest";
import { categoryMessages } from "../../../gpu-runner/engines/category/prompt";
import { WORKERS_AI } from "../../support/category-backends";
import { useFixture } from "../../support/engine-conformance";

/** Workers AI's REST format for llama-3.1-8b-instruct; shared behaviour is in category.conformance.test.ts. */
const h = useFixture(WORKERS_AI.start);
const signal = () => AbortSignal.timeout(20_000);

describe("workers-ai category engine", () => {
  it("POSTs { messages, max_tokens, temperature: 0 } to accounts/{account}/ai/run/@cf/meta/llama-3.1-8b-instruct with the API token", async () => {
    const input = h().request({ categories: ["podcast", "interview"] });
    const r = await h()
      .engine()
      .classify({ ...input, signal: signal() });
    const req = h().fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/client/v4/accounts/acc123/ai/run/@cf/meta/llama-3.1-8b-instruct");
    expect(req.headers.authorization).toBe("Bearer cf-token");
    expect(req.json()).toEqual({ messages: categoryMessages(input), max_tokens: 200, temperature: 0 });
    expect(r).toEqual({ category: "podcast", confidence: 0.82, scores: { podcast: 0.82 } });
  });

  it("runs the model the factory names", async () => {
    h().fake.model("@cf/meta/llama-3.1-8b-instruct-fast", () => ({ response: '{"category": "vlog", "confidence": 0.4}' }));
    const engine = h().engine({}, "@cf/meta/llama-3.1-8b-instruct-fast");
    expect(engine.model).toBe("@cf/meta/llama-3.1-8b-instruct-fast");
    expect(await engine.classify({ ...h().request(), signal: signal() })).toMatchObject({ category: "vlog", confidence: 0.4 });
    expect(h().fake.requests[0]!.path).toBe("/client/v4/accounts/acc123/ai/run/@cf/meta/llama-3.1-8b-instruct-fast");
  });

  it("reads a response JSON mode already parsed into an object", async () => {
    h().fake.model("@cf/meta/llama-3.1-8b-instruct", () => ({ response: { category: "news", confidence: 0.9 }, usage: {} }));
    expect(
      await h()
        .engine()
        .classify({ ...h().request(), signal: signal() }),
    ).toEqual({ category: "news", confidence: 0.9, scores: { news: 0.9 } });
  });

  it("fails naming engine and model when the envelope carries no result", async () => {
    h().fake.model("@cf/meta/llama-3.1-8b-instruct", () => null);
    await expect(
      h()
        .engine()
        .classify({ ...h().request(), signal: signal() }),
    ).rejects.toMatchObject({
      retryable: true,
      message: "workers-ai (@cf/meta/llama-3.1-8b-instruct): answered without a response: no result",
    });
  });

  it("fails at once, not retryable, when Workers AI rejects the input (400 in its envelope)", async () => {
    h().fake.model("@cf/meta/llama-3.1-8b-instruct", () => {
      throw new Error("AiError: Bad input: messages too long");
    });
    await expect(
      h()
        .engine()
        .classify({ ...h().request(), signal: signal() }),
    ).rejects.toMatchObject({
      retryable: false,
      message: "workers-ai (@cf/meta/llama-3.1-8b-instruct): rejected with HTTP 400: bad request: AiError: Bad input: messages too long",
    });
    expect(h().fake.requests).toHaveLength(1);
  });
});
