import { describe, expect, it } from "vitest";
import { WorkersAiRerankEngine } from "../../../contracts/rerank/workers-ai";
import { StepFailure } from "../../../contracts/step-failure";
import { useFixture } from "../../support/engine-conformance";
import { fakeRerankScore, type WorkersAiRank } from "../../support/fakes/rerank";
import { rejectionOf } from "../../support/rejection";
import { WORKERS_AI_BINDING } from "../../support/rerank-backends";

/** Workers AI's `@cf/baai/bge-reranker-base` through the AI binding (a stand-in following the model's schema). */
describe("workers-ai reranker, AI binding", () => {
  const h = useFixture(WORKERS_AI_BINDING.start);
  const scores = (query: string, texts: string[]) => texts.map((t) => fakeRerankScore(query, t));

  it("runs bge-reranker-base with { query, contexts: [{ text }], top_k: the number of texts }", async () => {
    await h().engine().rerank("a query", ["first text", "second text", "third text"]);
    expect(h().ai.calls).toEqual([
      {
        model: "@cf/baai/bge-reranker-base",
        input: { query: "a query", contexts: [{ text: "first text" }, { text: "second text" }, { text: "third text" }], top_k: 3 },
      },
    ]);
  });

  it("puts the answer back in the texts' order by id, whatever order it lists them in", async () => {
    h().ai.order((entries) => [...entries.slice(1), entries[0]!]);
    const texts = ["nothing shared", "bake bread", "bake bread in a hot oven", "bread"];
    expect(await h().engine().rerank("bake bread in a hot oven", texts)).toEqual(scores("bake bread in a hot oven", texts));
  });

  it("does not send blank texts, which the model's schema refuses, and scores them 0, the bottom of its scale", async () => {
    const answer = await h().engine().rerank("bake bread", ["", "bake bread", " \n"]);
    expect(answer).toEqual([0, fakeRerankScore("bake bread", "bake bread"), 0]);
    expect(h().ai.calls.map((c) => c.input)).toEqual([{ query: "bake bread", contexts: [{ text: "bake bread" }], top_k: 1 }]);
  });

  it("answers only blank texts without a call", async () => {
    expect(await h().engine().rerank("bake bread", ["", "  "])).toEqual([0, 0]);
    expect(h().ai.calls).toHaveLength(0);
  });

  it("is unavailable for a model that is not a reranking model it knows", () => {
    expect(() => new WorkersAiRerankEngine(h().ai, { model: "@cf/baai/bge-base-en-v1.5" })).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        retryable: false,
        message: "workers-ai: @cf/baai/bge-base-en-v1.5 is not a reranking model this service knows (known: @cf/baai/bge-reranker-base)",
      }),
    );
  });

  it.each<[string, (output: { response: WorkersAiRank[] }) => unknown, string]>([
    ["no response list", () => ({ result: [] }), "answered without a list of scores"],
    ["fewer entries than texts (top_k ignored)", (o) => ({ response: o.response.slice(0, 1) }), "answered no score for text 1 of 2"],
    ["an id outside the texts", (o) => ({ response: [...o.response, { id: 5, score: 0.5 }] }), "answered an entry for text 5 of 2"],
    [
      "a score that is not a number",
      (o) => ({ response: o.response.map((e) => ({ ...e, score: null })) }),
      "answered a score for text 0 that is not a number",
    ],
  ])("fails retryably, naming engine and model, on an output with %s", async (_what, tamper, message) => {
    h().ai.tamper(tamper);
    const f = await rejectionOf(h().engine().rerank("a query", ["a text", "another text"]), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: true, message: `workers-ai (@cf/baai/bge-reranker-base): ${message}` });
    expect(h().ai.calls).toHaveLength(1);
  });
});
