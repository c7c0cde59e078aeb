import { describe, expect, it } from "vitest";
import { RERANK_MAX_TEXTS, type RerankEngine } from "../../../contracts/rerank/interface";
import { StepFailure } from "../../../contracts/step-failure";
import { distinctTexts } from "../../support/embedding-backends";
import { hostedTransportCases, useFixture } from "../../support/engine-conformance";
import { fakeRerankScore } from "../../support/fakes/rerank";
import { rejectionOf } from "../../support/rejection";
import { RERANK_BACKENDS, TEI, WORKERS_AI_BINDING } from "../../support/rerank-backends";

/**
 * What every reranker does, whatever its backend: the local reranker in process and through the
 * local engine process (as the Worker reaches it), and the hosted backends against their fakes.
 * Format details of one backend live in rerank-<backend>.test.ts, the local reranker's reading of
 * words in rerank-local.test.ts.
 */
const rerank = (engine: RerankEngine, query: string, texts: readonly string[], signal: AbortSignal = AbortSignal.timeout(20_000)) =>
  engine.rerank(query, texts, signal);

const QUERY = "how to sharpen a kitchen knife";
const ANSWER = "to sharpen a kitchen knife, hold the blade at fifteen degrees against the whetstone and count your strokes";
const UNRELATED = "bitcoin fell fifteen percent after the exchange halted withdrawals and traders were liquidated";
const OTHER = "feed the sourdough starter, mix the flour and water, and bake the loaf in a hot oven";

/** `texts` in another order: reversed, then rotated by one. */
function permuted<T>(texts: readonly T[]): { items: T[]; from: number[] } {
  const from = texts.map((_, i) => texts.length - 1 - i);
  from.push(from.shift()!);
  return { items: from.map((i) => texts[i]!), from };
}

describe.each(RERANK_BACKENDS)("$label reranker", (backend) => {
  const h = useFixture(backend.start);

  it("names its engine and model", () => {
    expect(h().engine()).toMatchObject({ engine: backend.engine, model: backend.model });
  });

  it("gives one finite score per text", async () => {
    const scores = await rerank(h().engine(), QUERY, [ANSWER, UNRELATED, OTHER]);
    expect(scores).toHaveLength(3);
    for (const s of scores) expect(Number.isFinite(s)).toBe(true);
  });

  it("gives each text the score it gets alone, so the scores are in the texts' order", async () => {
    const engine = h().engine();
    const texts = [ANSWER, UNRELATED, OTHER];
    const together = await rerank(engine, QUERY, texts);
    const alone = await Promise.all(texts.map(async (t) => (await rerank(engine, QUERY, [t]))[0]));
    expect(together).toEqual(alone);
  });

  it("moves each score with its text when the texts are permuted", async () => {
    const engine = h().engine();
    const texts = [ANSWER, UNRELATED, OTHER, "a whetstone and a knife", "knives"];
    const scores = await rerank(engine, QUERY, texts);
    const { items, from } = permuted(texts);
    expect(await rerank(engine, QUERY, items)).toEqual(from.map((i) => scores[i]));
  });

  it(`sends more than ${RERANK_MAX_TEXTS} texts in batches of at most ${RERANK_MAX_TEXTS}, keeping their order`, async () => {
    const engine = h().engine();
    const texts = distinctTexts(2 * RERANK_MAX_TEXTS + 3);
    const query = "baking bread with friends";
    const all = await rerank(engine, query, texts);
    expect(all).toHaveLength(texts.length);
    const sent = h().sent();
    if (sent) {
      expect(sent.map((batch) => batch.length)).toEqual([RERANK_MAX_TEXTS, RERANK_MAX_TEXTS, 3]);
      expect(sent.flat()).toEqual(texts);
    }
    const probes = [0, RERANK_MAX_TEXTS - 1, RERANK_MAX_TEXTS, 2 * RERANK_MAX_TEXTS + 2];
    const alone = await rerank(
      engine,
      query,
      probes.map((i) => texts[i]!),
    );
    expect(alone).toEqual(probes.map((i) => all[i]));
  });

  it("answers no texts with no scores, sending nothing", async () => {
    expect(await rerank(h().engine(), QUERY, [])).toEqual([]);
    expect(h().sent()?.length ?? 0).toBe(0);
  });

  it("gives a blank text a finite score, below that of a text that answers the query", async () => {
    const [empty, spaces, answer] = await rerank(h().engine(), QUERY, ["", "  \n", ANSWER]);
    expect(Number.isFinite(empty)).toBe(true);
    expect(Number.isFinite(spaces)).toBe(true);
    expect(answer).toBeGreaterThan(empty!);
  });

  it("ranks a text that answers the query above unrelated ones", async () => {
    const [answer, unrelated, other] = await rerank(h().engine(), QUERY, [ANSWER, UNRELATED, OTHER]);
    expect(answer).toBeGreaterThan(unrelated!);
    expect(answer).toBeGreaterThan(other!);
  });

  it("rejects with the signal's reason when the search is already cancelled, sending nothing", async () => {
    const reason = new Error("cancel requested");
    await expect(rerank(h().engine(), QUERY, [ANSWER], AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(h().sent()?.length ?? 0).toBe(0);
  });
});

describe("tei reranker over HTTP", () => {
  const h = useFixture(TEI.start);

  hostedTransportCases(h, {
    name: TEI.engine,
    model: TEI.model,
    run: (engine, signal) => engine.rerank(QUERY, [ANSWER, UNRELATED], signal),
    expectResult: (r) => expect(r).toEqual([fakeRerankScore(QUERY, ANSWER), fakeRerankScore(QUERY, UNRELATED)]),
  });
});

describe("workers-ai reranker through the AI binding, when Workers AI fails", () => {
  const h = useFixture(WORKERS_AI_BINDING.start);
  const engine = (timeoutMs?: number) => h().engine(timeoutMs ? { RERANK_HTTP_TIMEOUT_MS: String(timeoutMs) } : {});
  const run = (e: RerankEngine, signal?: AbortSignal) => e.rerank(QUERY, [ANSWER], signal);

  it("retries Workers AI's out-of-capacity error and succeeds on the next call", async () => {
    h().ai.fail(new Error("3040: Capacity temporarily exceeded, please try again."));
    expect(await run(engine())).toEqual([fakeRerankScore(QUERY, ANSWER)]);
    expect(h().ai.calls).toHaveLength(2);
  });

  it("fails at once, not retryable, when Workers AI refuses the input by its schema without an error code", async () => {
    h().ai.fail(new Error("Length of '/contexts/0/text' must be >= 1, not 0"));
    const f = await rejectionOf(run(engine()), StepFailure);
    expect(f).toMatchObject({ retryable: false, message: expect.stringContaining("rejected the request: Length of") });
    expect(h().ai.calls).toHaveLength(1);
  });

  it("fails at once, not retryable and naming engine and model, when Workers AI rejects the request", async () => {
    h().ai.fail(new Error("3036: You have used up your daily free allocation of 10,000 neurons."));
    const f = await rejectionOf(run(engine()), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: false,
      message:
        "workers-ai (@cf/baai/bge-reranker-base): rejected the request: 3036: You have used up your daily free allocation of 10,000 neurons.",
    });
    expect(h().ai.calls).toHaveLength(1);
  });

  it("gives up after its attempts with a retryable failure naming engine and model", async () => {
    h().ai.fail(new Error("internal error"), new Error("internal error"), new Error("internal error"));
    const f = await rejectionOf(run(engine()), StepFailure);
    expect(f).toMatchObject({
      retryable: true,
      message: "workers-ai (@cf/baai/bge-reranker-base): failed after 3 attempts: internal error",
    });
  });

  it("stops waiting for a call that does not answer within its timeout, and retries it", async () => {
    h().ai.fail("hang");
    expect(await run(engine(100))).toEqual([fakeRerankScore(QUERY, ANSWER)]);
    expect(h().ai.calls).toHaveLength(2);
  });

  it("stops at once when the search is cancelled, with the signal's reason", async () => {
    h().ai.fail("hang");
    const ac = new AbortController();
    const reason = new Error("cancel requested");
    const pending = run(engine(), ac.signal);
    ac.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(h().ai.calls).toHaveLength(1);
  });
});
