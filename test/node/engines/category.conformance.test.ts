import { describe, expect, it } from "vitest";
import { StepFailure } from "../../../contracts/step-failure";
import { createCategoryEngine } from "../../../gpu-runner/engines/category/factory";
import type { CategoryEngine, CategoryResult } from "../../../gpu-runner/engines/category/interface";
import { CATEGORY_BACKENDS, HOSTED_CATEGORY_BACKENDS, STANDIN_CONFIDENCE, type CategoryInput } from "../../support/category-backends";
import { hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import { rejectionOf } from "../../support/rejection";

/**
 * What every category engine does, whatever its backend: the local lexicon, and each hosted
 * language model against its fake. Format details of one backend live in category-<backend>.test.ts.
 */
const classify = (engine: CategoryEngine, req: CategoryInput, signal: AbortSignal = AbortSignal.timeout(20_000)) =>
  engine.classify({ ...req, signal });

function expectAnswerFrom(r: CategoryResult, categories: readonly string[]): void {
  expect(categories).toContain(r.category);
  expect(r.confidence).toBeGreaterThanOrEqual(0);
  expect(r.confidence).toBeLessThanOrEqual(1);
  expect(r.scores[r.category]).toBe(r.confidence);
  for (const c of Object.keys(r.scores)) expect(categories).toContain(c);
}

describe.each(CATEGORY_BACKENDS)("$name category engine", (backend) => {
  const h = useFixture(backend.start);

  it("names its engine and model", () => {
    expect(h().engine()).toMatchObject({ engine: backend.name, model: backend.model });
  });

  it("answers one of the allowed categories, with its confidence (0..1) recorded in scores", async () => {
    const req = h().request();
    expectAnswerFrom(await classify(h().engine(), req), req.categories);
  });

  it.each([[["gaming", "news"]], [["education"]], [["sports", "presentation", "vlog"]]])(
    "answers only from the categories it is given: %j",
    async (categories) => {
      expectAnswerFrom(await classify(h().engine(), h().request({ categories })), categories);
    },
  );

  it("rejects with the signal's reason when the task is already cancelled", async () => {
    const reason = new Error("cancel requested");
    await expect(classify(h().engine(), h().request(), AbortSignal.abort(reason))).rejects.toBe(reason);
  });
});

/** Answers a language model may give that are not an answer, each with how the failure says so. */
const MALFORMED: { what: string; says: string; message: string }[] = [
  {
    what: "prose instead of JSON",
    says: "It sounds like a podcast to me.",
    message: "answered something that is not a JSON object: It sounds like a podcast to me.",
  },
  {
    what: "a category outside the list",
    says: '{"category": "cooking", "confidence": 0.9}',
    message: 'answered category "cooking", which is not one of gaming, news',
  },
  {
    what: "a confidence above 1",
    says: '{"category": "news", "confidence": 87}',
    message:
      'answered JSON that is not {category, confidence 0..1} (confidence: Too big: expected number to be <=1): {"category":"news","confidence":87}',
  },
  {
    what: "no confidence",
    says: '{"category": "news"}',
    message: expect.stringContaining("answered JSON that is not {category, confidence 0..1} (confidence: ") as unknown as string,
  },
  {
    what: "a JSON array",
    says: '["news"]',
    message: 'answered something that is not a JSON object: ["news"]',
  },
  { what: "nothing", says: "", message: expect.stringMatching(/: answered an empty (message|response)/) as unknown as string },
];

describe.each(HOSTED_CATEGORY_BACKENDS)("$name category engine over HTTP", (backend) => {
  const h = useFixture(backend.start);

  hostedTransportCases(h, {
    name: backend.name,
    model: backend.model,
    run: (engine, signal) => engine.classify({ ...h().request(), signal }),
    expectResult: (r) =>
      expect(r).toEqual({ category: "interview", confidence: STANDIN_CONFIDENCE, scores: { interview: STANDIN_CONFIDENCE } }),
  });

  it("retries a 503 no sooner than its Retry-After asks", async () => {
    h().fake.fail({ status: 503, retryAfter: "1", message: "model is loading" });
    const r = await classify(h().engine({ CATEGORY_HTTP_MAX_BACKOFF_MS: "5000" }), h().request());
    expect(r.category).toBe("interview");
    const [first, second] = h().fake.requests;
    expect(h().fake.requests).toHaveLength(2);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  it.each(MALFORMED)("fails retryably, naming engine and model, when the model answers $what", async ({ says, message }) => {
    h().says(says);
    const engine = h().engine();
    const f = await rejectionOf(classify(engine, h().request({ categories: ["gaming", "news"] })), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: true });
    expect(f.message).toEqual(typeof message === "string" ? `${backend.name} (${backend.model}): ${message}` : message);
    expect(f.message.startsWith(`${backend.name} (${backend.model}): `)).toBe(true);
    // An answer that arrived is not sent again: the step's retry decides.
    expect(h().fake.requests).toHaveLength(1);
  });

  it("reads an answer in a markdown fence, matching the category regardless of case", async () => {
    h().says('Here you go:\n```json\n{"category": " News ", "confidence": 0.6, "reason": "anchor desk"}\n```');
    expect(await classify(h().engine(), h().request({ categories: ["gaming", "news"] }))).toEqual({
      category: "news",
      confidence: 0.6,
      scores: { news: 0.6 },
    });
  });

  it("fails at once, not retryable and without a request, when there are no categories to choose from", async () => {
    const f = await rejectionOf(classify(h().engine(), h().request({ categories: [] })), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: false,
      message: `${backend.name} (${backend.model}): no categories to choose from (supportedCategories is empty)`,
    });
    expect(h().fake.requests).toHaveLength(0);
  });

  it("sends nothing for a task already cancelled", async () => {
    await expect(classify(h().engine(), h().request(), AbortSignal.abort(new Error("cancel requested")))).rejects.toThrow(
      "cancel requested",
    );
    expect(h().fake.requests).toHaveLength(0);
  });

  requiredSettingCase("category", h);
});

describe("createCategoryEngine", () => {
  it("makes the local lexicon when no engine is named, needing no environment", () => {
    expect(createCategoryEngine(undefined)).toMatchObject({ engine: "local-lexicon" });
    expect(createCategoryEngine("local-lexicon", {})).toMatchObject({ engine: "local-lexicon" });
  });

  it("is unavailable for an engine it does not know, listing the ones it does", () => {
    expect(() => createCategoryEngine("gpt-oracle", {})).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        retryable: true,
        message: "category engine gpt-oracle is not known on this runner (known: local-lexicon, openai-compatible, workers-ai)",
      }),
    );
  });
});
