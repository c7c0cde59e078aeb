import { describe, expect, it } from "vitest";
import { type EmbeddingEngine } from "../../../contracts/embeddings/interface";
import { cosine } from "../../../contracts/embeddings/vectors";
import { LOCAL_WINK_MODEL } from "../../../contracts/embeddings/local-wink";
import { embeddingEngineForWorker } from "../../../contracts/embeddings/worker-factory";
import { createEmbeddingEngine } from "../../../gpu-runner/engines/embeddings/factory";
import { LOCAL_WINK_MODEL_ID, loadWinkModel } from "../../../gpu-runner/engines/embeddings/local-wink";
import { StepFailure } from "../../../contracts/step-failure";
import { distinctTexts, EMBEDDING_BACKENDS, HOSTED_EMBEDDING_BACKENDS, LOCAL_WINK } from "../../support/embedding-backends";
import { hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import { rejectionOf } from "../../support/rejection";

/**
 * What every embedding engine does, whatever its backend: the local engine in the runner's process
 * and through the local engine process (as the Worker reaches it), and the hosted backends against
 * their fakes. Format details of one backend live in embeddings-<backend>.test.ts.
 */
const embed = (engine: EmbeddingEngine, texts: readonly string[], signal: AbortSignal = AbortSignal.timeout(20_000)) =>
  engine.embed(texts, signal);

function length(v: Float32Array): number {
  return Math.sqrt(cosine(v, v));
}

describe.each(EMBEDDING_BACKENDS)("$label embedding engine", (backend) => {
  const h = useFixture(backend.start);

  it("names its engine, model and dimensions", () => {
    expect(h().engine()).toMatchObject({ engine: backend.engine, model: backend.model, dimensions: backend.dimensions });
  });

  it("gives one unit-length vector of its declared dimensions per text", async () => {
    const vectors = await embed(h().engine(), distinctTexts(3));
    expect(vectors).toHaveLength(3);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v).toHaveLength(backend.dimensions);
      expect(length(v)).toBeCloseTo(1, 5);
    }
  });

  it("keeps the texts' order across more texts than one batch holds, sending at most a batch at a time", async () => {
    const engine = h().engine();
    const texts = distinctTexts(2 * backend.maxBatch + 3);
    const all = await embed(engine, texts);
    const sent = h().sent();
    if (sent) {
      expect(sent.map((batch) => batch.length)).toEqual([backend.maxBatch, backend.maxBatch, 3]);
      expect(sent.flat()).toEqual(texts);
    }
    const probes = [0, backend.maxBatch - 1, backend.maxBatch, 2 * backend.maxBatch + 2];
    const alone = await embed(
      engine,
      probes.map((i) => texts[i]!),
    );
    probes.forEach((i, k) => expect(all[i]).toEqual(alone[k]));
  });

  it("gives the same text the same vector, within one call and across calls", async () => {
    const engine = h().engine();
    const [a, b, c] = await embed(engine, ["a podcast about cooking", "a vlog about travel", "a podcast about cooking"]);
    const [again] = await embed(engine, ["a podcast about cooking"]);
    expect(c).toEqual(a);
    expect(again).toEqual(a);
    expect(b).not.toEqual(a);
  });

  it("gives a blank text the zero vector without sending it", async () => {
    const [empty, text, spaces] = await embed(h().engine(), ["", "the news tonight", " \n\t"]);
    expect(empty).toEqual(new Float32Array(backend.dimensions));
    expect(spaces).toEqual(new Float32Array(backend.dimensions));
    expect(length(text!)).toBeCloseTo(1, 5);
    expect(h().sent()?.flat() ?? ["the news tonight"]).toEqual(["the news tonight"]);
  });

  it("answers no texts with no vectors, sending nothing", async () => {
    expect(await embed(h().engine(), [])).toEqual([]);
    expect(h().sent()?.length ?? 0).toBe(0);
  });

  it("rejects with the signal's reason when the task is already cancelled, sending nothing", async () => {
    const reason = new Error("cancel requested");
    await expect(embed(h().engine(), ["hello"], AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(h().sent()?.length ?? 0).toBe(0);
  });

  it.runIf(backend.semantic)("places related texts closer together than unrelated ones", async () => {
    const [query, knives, bread, crypto] = await embed(h().engine(), [
      "how to sharpen a kitchen knife",
      "hold the blade at fifteen degrees against the whetstone and count your strokes until the edge is sharp",
      "feed the sourdough starter, mix the flour and water, and bake the loaf in a hot oven",
      "bitcoin fell fifteen percent after the exchange halted withdrawals and traders were liquidated",
    ]);
    expect(cosine(query!, knives!)).toBeGreaterThan(cosine(query!, bread!));
    expect(cosine(query!, knives!)).toBeGreaterThan(cosine(query!, crypto!));
    expect(cosine(knives!, bread!)).toBeGreaterThan(cosine(knives!, crypto!));
  });
});

describe("local-wink embedding engine", () => {
  const h = useFixture(LOCAL_WINK.start);

  it("reads words regardless of case and punctuation", async () => {
    const [a, b] = await embed(h().engine(), ["Podcast: EPISODE 12 — the Interview!", "podcast episode the interview"]);
    expect(a).toEqual(b);
  });

  it("gives a text without one word it knows the zero vector, whose similarity to anything is 0", async () => {
    const [unknown, known] = await embed(h().engine(), ["zxqv 12345 qwpfj", "a cooking show"]);
    expect(unknown).toEqual(new Float32Array(100));
    expect(cosine(unknown!, known!)).toBe(0);
  });

  it("reads a word it has no vector for by its parts, or without its accents", async () => {
    const [dont, don, cafe, plain] = await embed(h().engine(), ["don't", "don", "café", "cafe"]);
    expect(dont).toEqual(don);
    expect(cafe).toEqual(plain);
  });

  it("names the installed package's version as its model, the same model the Worker records", () => {
    expect(LOCAL_WINK_MODEL_ID).toBe(LOCAL_WINK_MODEL);
  });

  it("loads the word vectors once per process, for every engine", async () => {
    await embed(createEmbeddingEngine("local-wink"), ["first"]);
    const loaded = await loadWinkModel();
    await embed(createEmbeddingEngine("local-wink"), ["second"]);
    expect(await loadWinkModel()).toBe(loaded);
  });
});

describe.each(HOSTED_EMBEDDING_BACKENDS)("$label embedding engine over HTTP", (backend) => {
  const h = useFixture(backend.start);

  hostedTransportCases(h, {
    name: backend.engine,
    model: backend.model,
    run: (engine, signal) => engine.embed(["hello world"], signal),
    expectResult: (r) => expect(r).toEqual([h().expected("hello world")]),
  });

  it("answers the fake model's vectors, unit length", async () => {
    expect(await embed(h().engine(), ["one", "two"])).toEqual([h().expected("one"), h().expected("two")]);
  });

  it("fails retryably, naming engine and model, when the answer holds fewer vectors than texts", async () => {
    h().answersNoVectors();
    const f = await rejectionOf(embed(h().engine(), ["one", "two"]), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: true,
      message: `${backend.engine} (${backend.model}): answered 0 embeddings for 2 texts`,
    });
    expect(h().fake.requests).toHaveLength(1);
  });

  requiredSettingCase("embedding", h);
});

describe("createEmbeddingEngine (runner)", () => {
  it("makes the local engine when no engine is named, needing no environment", () => {
    expect(createEmbeddingEngine(undefined)).toMatchObject({ engine: "local-wink", model: LOCAL_WINK_MODEL, dimensions: 100 });
  });

  it("is unavailable for an engine it does not know, listing the ones it does", () => {
    expect(() => createEmbeddingEngine("word2vec", {})).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        retryable: true,
        message: "embedding engine word2vec is not known on this runner (known: local-wink, workers-ai, openai-compatible)",
      }),
    );
  });
});

describe("embeddingEngineForWorker", () => {
  it.each([
    [
      { engine: "local-wink" as const },
      "embedding engine local-wink is not configured on this Worker: baseUrl (the local engine process) is not set",
    ],
    [{ engine: "workers-ai" as const }, "embedding engine workers-ai is not configured on this Worker: the AI binding is not set"],
    [{ engine: "openai-compatible" as const }, "embedding engine openai-compatible is not configured on this Worker: baseUrl is not set"],
  ])("is unavailable without the setting its engine needs: %j", (config, message) => {
    expect(() => embeddingEngineForWorker(config)).toThrow(expect.objectContaining({ code: "engine_unavailable", message }));
  });

  it("reports the local engine process's client as the local engine, so its vectors compare with the runner's", () => {
    expect(embeddingEngineForWorker({ engine: "local-wink", baseUrl: "http://127.0.0.1:8790" })).toMatchObject({
      engine: "local-wink",
      model: LOCAL_WINK_MODEL,
      dimensions: 100,
    });
  });
});
