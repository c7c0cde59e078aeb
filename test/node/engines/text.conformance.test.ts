import { describe, expect, it } from "vitest";
import { MetadataDraftSchema, SummaryDraftSchema, type MetadataDraft } from "../../../contracts/understanding";
import { StepFailure } from "../../../contracts/step-failure";
import { createTextEngine } from "../../../gpu-runner/engines/text/factory";
import type { TextDocument, TextEngine } from "../../../gpu-runner/engines/text/interface";
import { hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import { rejectionOf } from "../../support/rejection";
import {
  HOSTED_TEXT_BACKENDS,
  metadataAnswer,
  STANDIN_CONFIDENCE,
  summaryAnswer,
  TOMATO_SCENES,
  TOMATO_TALK,
} from "../../support/text-backends";

/**
 * What every hosted text engine does, whatever its backend, each against its fake with a stand-in
 * model answering. Wire formats of one backend live in text-<backend>.test.ts; the prompt and the
 * reading rules in detail in text-prompt.test.ts.
 */
const signal = () => AbortSignal.timeout(20_000);
const metadata = (engine: TextEngine, doc: TextDocument = TOMATO_TALK, s = signal()) => engine.metadata({ doc, signal: s });
const summarize = (engine: TextEngine, doc: TextDocument = TOMATO_TALK) =>
  engine.summarize({ doc, visualChunks: TOMATO_SCENES, signal: signal() });

/** The model's answers as text, the way it says them. */
const metadataText = (overrides: Record<string, unknown> = {}) => JSON.stringify(metadataAnswer(overrides));
const summaryText = (overrides: Record<string, unknown> = {}) => JSON.stringify(summaryAnswer(overrides));

const LONG_TITLE = "How to grow a great many cherry tomatoes on a very small city balcony in summer";

describe.each(HOSTED_TEXT_BACKENDS)("$name text engine", (backend) => {
  const h = useFixture(backend.start);

  it("records itself as a language model, naming engine and model", () => {
    expect(h().engine().generatedBy).toEqual({ engine: backend.name, model: backend.model, kind: "language-model" });
  });

  it("writes a metadata draft the contract accepts, from the transcript it is shown", async () => {
    const draft = await metadata(h().engine());
    expect(MetadataDraftSchema.parse(draft)).toEqual(draft);
    expect(draft.title).toBe("Growing tomatoes on a small balcony");
    expect(draft.chapters.map((c) => c.segmentId)).toEqual([0, 3]);
  });

  it("writes a summary draft the contract accepts, drawing on the scenes it is shown", async () => {
    const draft = await summarize(h().engine());
    expect(SummaryDraftSchema.parse(draft)).toEqual(draft);
    expect(draft.shortSynopsis).toBe(TOMATO_TALK.segments[0]!.text);
    expect(draft.visualChunksUsed).toEqual([0, 1]);
  });

  it("takes each chapter's start from its segment, never from the model, the first at 0", async () => {
    h().says(
      metadataText({
        chapters: [
          { segmentId: 0, start: 5, title: "Intro" },
          { segmentId: 3, start: 999, title: "Feeding" },
        ],
      }),
    );
    const draft = await metadata(h().engine());
    expect(draft.chapters).toEqual([
      { segmentId: 0, start: 0, title: "Intro" },
      { segmentId: 3, start: 44, title: "Feeding" },
    ]);
  });

  it("keeps IAB categories the taxonomy has, with its names and tier paths, and drops the ids it does not have", async () => {
    h().says(
      metadataText({
        categories: [
          { id: "IAB17", confidence: 0.9 },
          { id: "234", confidence: 0.7 },
        ],
      }),
    );
    const engine = h().engine();
    const draft = await metadata(engine);
    expect(draft.categories).toEqual([
      {
        id: "234",
        name: "Herbs and Supplements",
        tierPath: ["Healthy Living", "Wellness", "Alternative Medicine", "Herbs and Supplements"],
        confidence: 0.7,
      },
    ]);
    expect(h().logged).toContainEqual({
      level: "info",
      event: "text_draft_adjusted",
      fields: {
        engine: backend.name,
        model: backend.model,
        task: "metadata",
        notes: ['categories: ids not in the IAB taxonomy dropped: "IAB17"'],
      },
    });
  });

  it("answers the first tier-1 IAB category offered, filled from the taxonomy", async () => {
    const draft = await metadata(h().engine());
    expect(draft.categories).toEqual([{ id: "150", name: "Attractions", tierPath: ["Attractions"], confidence: STANDIN_CONFIDENCE }]);
  });

  it("asks once more, telling the model what was wrong, when an answer is over a limit, and keeps the corrected answer", async () => {
    h().says(metadataText({ title: LONG_TITLE }));
    const draft = await metadata(h().engine());
    expect(draft.title).toBe("Growing tomatoes on a small balcony");
    expect(h().heard).toHaveLength(2);
    const problems = h().heard[1]!.at(-1)!.content;
    expect(problems).toContain(`- title: ${LONG_TITLE.length} characters, at most 70 allowed`);
    expect(problems).toContain("Answer again with the whole JSON object, corrected, and nothing else.");
  });

  it("cuts a string still over its limit after the retry at a word, marked, and records the cut", async () => {
    h().says(metadataText({ title: LONG_TITLE }), metadataText({ title: LONG_TITLE }));
    const draft = await metadata(h().engine());
    expect(draft.title).toBe("How to grow a great many cherry tomatoes on a very small city balcony…");
    expect(draft.title.length).toBeLessThanOrEqual(70);
    expect(h().logged.map((l) => l.fields.notes ?? l.fields.issues)).toEqual([
      [`title: ${LONG_TITLE.length} characters, at most 70 allowed`],
      [`title: cut from ${LONG_TITLE.length} to 70 characters`],
    ]);
  });

  it("fails retryably, naming engine, model and the first problem, when the retry's answer is still invalid", async () => {
    const wrong = metadataText({ chapters: [{ segmentId: 99, title: "Nowhere" }] });
    h().says(wrong, wrong);
    const f = await rejectionOf(metadata(h().engine()), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: true,
      message: `${backend.name} (${backend.model}): answered no valid metadata draft in 2 requests: chapters[0].segmentId: 99 is not the id of a transcript segment shown`,
    });
    expect(h().heard).toHaveLength(2);
  });

  it("fails retryably after two answers that are not JSON", async () => {
    h().says("Here is a lovely title for you: Tomatoes!", "Sorry, I cannot do JSON.");
    const f = await rejectionOf(metadata(h().engine()), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: true });
    expect(f.message).toMatch(
      new RegExp(
        `^${escape(`${backend.name} (${backend.model}): answered no valid metadata draft in 2 requests: the answer is not a JSON object`)}`,
      ),
    );
    expect(h().heard).toHaveLength(2);
  });

  it("asks again when a summary names a scene it was not shown", async () => {
    h().says(summaryText({ visualChunksUsed: [1, 7] }));
    expect((await summarize(h().engine())).visualChunksUsed).toEqual([0, 1]);
    expect(h().heard[1]!.at(-1)!.content).toContain("- visualChunksUsed[1]: 7 is not the index of a scene shown (shown: 0, 1)");
  });

  it("fails at once, not retryable and without a request, when the transcript has no text", async () => {
    const silent = { ...TOMATO_TALK, segments: [{ id: 0, start: 0, end: 5, text: "  " }] };
    const f = await rejectionOf(metadata(h().engine(), silent), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: false,
      message: `${backend.name} (${backend.model}): nothing to write about in txt_tomatoes: its transcript has no text`,
    });
    expect(h().fake.requests).toHaveLength(0);
  });

  it("sends nothing for a task already cancelled, rejecting with the signal's reason", async () => {
    const reason = new Error("cancel requested");
    await expect(metadata(h().engine(), TOMATO_TALK, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(h().fake.requests).toHaveLength(0);
  });

  requiredSettingCase("text", h);

  describe("over HTTP", () => {
    hostedTransportCases(h, {
      name: backend.name,
      model: backend.model,
      run: (engine, s) => engine.metadata({ doc: TOMATO_TALK, signal: s }),
      expectResult: (r) => expect((r as MetadataDraft).title).toBe("Growing tomatoes on a small balcony"),
    });
  });
});

describe("createTextEngine", () => {
  it("makes the local extractive engine when no engine is named, needing no environment", () => {
    expect(createTextEngine(undefined).generatedBy).toMatchObject({ engine: "local-extractive", kind: "extractive" });
  });

  it("is unavailable for an engine it does not know, listing the ones it does", () => {
    expect(() => createTextEngine("gpt-oracle", {})).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        retryable: true,
        message: "text engine gpt-oracle is not known on this runner (known: local-extractive, workers-ai, replicate, openai-compatible)",
      }),
    );
  });

  it.each([
    ["workers-ai", "CLOUDFLARE_ACCOUNT_ID"],
    ["replicate", "REPLICATE_API_TOKEN"],
    ["openai-compatible", "OPENAI_COMPAT_BASE_URL"],
  ])("is unavailable as %s without %s, naming the variable", (name, variable) => {
    expect(() => createTextEngine(name, {})).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        retryable: true,
        message: `text engine is not configured on this runner: ${variable} is not set`,
      }),
    );
  });

  it("takes the model from the options, and for openai-compatible from OPENAI_COMPAT_TEXT_MODEL first", () => {
    const env = { CLOUDFLARE_ACCOUNT_ID: "a", CLOUDFLARE_API_TOKEN: "t", OPENAI_COMPAT_BASE_URL: "http://127.0.0.1:9" };
    expect(createTextEngine("workers-ai", env, { model: "@cf/meta/llama-3.3-70b-instruct-fp8-fast" }).generatedBy.model).toBe(
      "@cf/meta/llama-3.3-70b-instruct-fp8-fast",
    );
    expect(
      createTextEngine("openai-compatible", { ...env, OPENAI_COMPAT_TEXT_MODEL: "qwen2.5:7b" }, { model: "x" }).generatedBy.model,
    ).toBe("qwen2.5:7b");
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
