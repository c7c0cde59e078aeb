import { describe, expect, it } from "vitest";
import { normalize } from "../../../contracts/embeddings/vectors";
import { workersAiBinding, workersAiRest } from "../../../contracts/embeddings/workers-ai";
import { createEmbeddingEngine } from "../../../gpu-runner/engines/embeddings/factory";
import { StepFailure } from "../../../contracts/step-failure";
import { FakeAiBinding, WORKERS_AI_BINDING, WORKERS_AI_REST } from "../../support/embedding-backends";
import { useFixture } from "../../support/engine-conformance";
import { bgeOutput } from "../../support/fakes/embeddings";
import type { FakeWorkersAI } from "../../support/fakes/workers-ai";
import { rejectionOf } from "../../support/rejection";

/** Workers AI's bge models through the REST API (against the fake) and through the AI binding (a stand-in). */
describe("workers-ai embedding engine, REST API", () => {
  const h = useFixture(WORKERS_AI_REST.start);
  const fake = () => h().fake as FakeWorkersAI;

  it("posts { text: [texts], pooling: mean } to /accounts/{account}/ai/run/{model} with the API token", async () => {
    await h().engine().embed(["first", "second"]);
    const [req] = fake().requests;
    expect(req).toMatchObject({ method: "POST", path: "/client/v4/accounts/acc123/ai/run/@cf/baai/bge-base-en-v1.5" });
    expect(req!.headers.authorization).toBe("Bearer cf-token");
    expect(req!.json()).toEqual({ text: ["first", "second"], pooling: "mean" });
  });

  it.each([
    ["@cf/baai/bge-small-en-v1.5", 384],
    ["@cf/baai/bge-large-en-v1.5", 1024],
  ])("serves %s with its %i dimensions", async (model, dims) => {
    const engine = createEmbeddingEngine("workers-ai", h().env, { model });
    expect(engine).toMatchObject({ engine: "workers-ai", model, dimensions: dims });
    const [v] = await engine.embed(["hello"]);
    expect(v).toEqual(normalize(bgeOutput(model, { text: ["hello"], pooling: "mean" }).data[0]!));
  });

  it("is unavailable for a model that is not one of the bge embedding models", () => {
    expect(() => createEmbeddingEngine("workers-ai", h().env, { model: "@cf/meta/llama-3.1-8b-instruct" })).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        message: expect.stringContaining("workers-ai: @cf/meta/llama-3.1-8b-instruct is not an embedding model this service knows"),
      }),
    );
  });

  it("fails retryably, naming engine and model, when the envelope says it did not succeed", async () => {
    fake().model("@cf/baai/bge-base-en-v1.5", () => null);
    const f = await rejectionOf(h().engine().embed(["hello"]), StepFailure);
    expect(f).toMatchObject({ retryable: true, message: "workers-ai (@cf/baai/bge-base-en-v1.5): answered without a result: no result" });
  });

  it("never sends more than the model's 100 texts, whatever batch size it is asked for", async () => {
    const engine = workersAiRest({ baseUrl: `${fake().url}/client/v4`, accountId: "acc123", apiToken: "cf-token" });
    await engine.embed(Array.from({ length: 101 }, (_, i) => `text ${i}`));
    expect(fake().requests.map((r) => (r.json() as { text: string[] }).text.length)).toEqual([100, 1]);
  });
});

describe("workers-ai embedding engine, AI binding", () => {
  const h = useFixture(WORKERS_AI_BINDING.start);
  const engine = (ai: FakeAiBinding, timeoutMs?: number) =>
    workersAiBinding(ai, { attempts: 3, baseDelayMs: 10, maxDelayMs: 20, ...(timeoutMs ? { timeoutMs } : {}) });

  it("runs the model with { text: [texts], pooling: mean }", async () => {
    await h().engine().embed(["first", "second"]);
    expect(h().ai.calls).toEqual([{ model: "@cf/baai/bge-base-en-v1.5", input: { text: ["first", "second"], pooling: "mean" } }]);
  });

  it("retries Workers AI's out-of-capacity error and succeeds on the next call", async () => {
    h().ai.fail(new Error("3040: Capacity temporarily exceeded, please try again."));
    const [v] = await engine(h().ai).embed(["hello"]);
    expect(v).toEqual(normalize(bgeOutput("@cf/baai/bge-base-en-v1.5", { text: ["hello"] }).data[0]!));
    expect(h().ai.calls).toHaveLength(2);
  });

  it("fails at once, not retryable and naming engine and model, when Workers AI rejects the request", async () => {
    h().ai.fail(new Error("AiError: 5007: No such model @cf/baai/bge-base-en-v1.5 or task"));
    const f = await rejectionOf(engine(h().ai).embed(["hello"]), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: false,
      message:
        "workers-ai (@cf/baai/bge-base-en-v1.5): rejected the request: AiError: 5007: No such model @cf/baai/bge-base-en-v1.5 or task",
    });
    expect(h().ai.calls).toHaveLength(1);
  });

  it("gives up after its attempts with a retryable failure naming engine and model", async () => {
    h().ai.fail(new Error("internal error"), new Error("internal error"), new Error("internal error"));
    const f = await rejectionOf(engine(h().ai).embed(["hello"]), StepFailure);
    expect(f).toMatchObject({
      retryable: true,
      message: "workers-ai (@cf/baai/bge-base-en-v1.5): failed after 3 attempts: internal error",
    });
  });

  it("stops waiting for a call that does not answer within its timeout, and retries it", async () => {
    h().ai.fail("hang");
    const [v] = await engine(h().ai, 100).embed(["hello"]);
    expect(v).toHaveLength(768);
    expect(h().ai.calls).toHaveLength(2);
  });

  it("stops at once when the task is cancelled, with the signal's reason", async () => {
    h().ai.fail("hang");
    const ac = new AbortController();
    const reason = new Error("cancel requested");
    const pending = engine(h().ai).embed(["hello"], ac.signal);
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(h().ai.calls).toHaveLength(1);
  });
});
