import { describe, expect, it } from "vitest";
import { StepFailure } from "../../../contracts/step-failure";
import { createTranslationEngine } from "../../../gpu-runner/engines/translation/factory";
import type { GlossaryDrop, TranslationEngine, TranslationRequest } from "../../../gpu-runner/engines/translation/interface";
import { abortAfter, hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import { fakeTranslation } from "../../support/fakes/translation";
import { rejectionOf } from "../../support/rejection";
import {
  ALL_TRANSLATION_BACKENDS,
  ENGLISH_TALK,
  HOSTED_TRANSLATION_BACKENDS,
  LANGUAGE_MODEL_TRANSLATORS,
  WORKERS_AI_M2M100,
} from "../../support/translation-backends";

/**
 * What every translation engine does, whatever its backend: Apertium through a real apertium-apy
 * server and through the real command, the hosted backends against their fakes. Wire formats of
 * one backend live in translation-<backend>.test.ts; Apertium's batching and modes in
 * translation-apertium.test.ts; the glossary rules in detail in translation-glossary.test.ts.
 */
const signal = () => AbortSignal.timeout(30_000);
const translate = (engine: TranslationEngine, texts: readonly string[], extra: Partial<TranslationRequest> = {}) =>
  engine.translate({ source: "en", target: "es", texts, signal: signal(), ...extra });

const GLOSSARY = [{ term: "media server", preferred: "MediaBox" }];

describe.each(ALL_TRANSLATION_BACKENDS)("$label", (backend) => {
  const h = useFixture(backend.start);

  it("records the model that translates the pair", () => {
    expect(h().engine().modelFor("en", "es")).toBe(backend.model);
  });

  it("answers one translation per text, in order, nothing merged or split", async () => {
    expect(await translate(h().engine(), ENGLISH_TALK)).toEqual(h().spanish);
  });

  it("leaves empty and blank texts empty, translating the others in place", async () => {
    const out = await translate(h().engine(), ["", ENGLISH_TALK[0]!, "   ", ENGLISH_TALK[1]!]);
    expect(out).toEqual(["", h().spanish[0], "", h().spanish[1]]);
  });

  it("answers nothing for no texts", async () => {
    expect(await translate(h().engine(), [])).toEqual([]);
  });

  it("keeps a glossary term out of translation and writes its preferred spelling", async () => {
    const drops: GlossaryDrop[] = [];
    const [out] = await translate(h().engine(), ["We deploy it on the Media Server today."], {
      glossary: GLOSSARY,
      onGlossaryDropped: (d) => drops.push(d),
    });
    expect(out).toContain("MediaBox");
    expect(out).not.toMatch(/media server|servidor/i);
    expect(drops).toEqual([]);
  });

  it("reports progress up to the number of texts", async () => {
    const seen: number[] = [];
    await translate(h().engine(), ["", ...ENGLISH_TALK], { onProgress: (n) => seen.push(n) });
    expect(seen.at(-1)).toBe(4);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
  });

  it("fails, not retryable, naming the engine, for a pair it cannot translate", async () => {
    const engine = h().engine({}, { languages: ["en", "es"] });
    const f = await rejectionOf(engine.translate({ source: "en", target: "tlh", texts: ["Hello"], signal: signal() }), StepFailure);
    expect(f).toMatchObject({
      code: "processing_failed",
      retryable: false,
      message: expect.stringMatching(new RegExp(`^${backend.engine}\\b`)),
    });
  });

  it("does nothing for a task already cancelled, rejecting with the signal's reason", async () => {
    const reason = new Error("cancel requested");
    await expect(translate(h().engine(), ENGLISH_TALK, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it("stops when the task is cancelled mid-way, with the signal's reason", async () => {
    const reason = new Error("cancel requested");
    // Enough work that no backend (a fast fake answers 40 texts in a millisecond or two) finishes before the cancel.
    const many = Array.from({ length: 4000 }, (_, i) => `Segment ${i}: we water the tomatoes every morning before work.`);
    await expect(translate(h().engine(), many, { signal: abortAfter(30, reason) })).rejects.toBe(reason);
  });
});

describe.each(HOSTED_TRANSLATION_BACKENDS)("$label over HTTP", (backend) => {
  const h = useFixture(backend.start);

  requiredSettingCase("translation", h);

  hostedTransportCases(h, {
    name: backend.engine,
    model: backend.model,
    run: (engine, s) => engine.translate({ source: "en", target: "es", texts: [ENGLISH_TALK[0]!], signal: s }),
    expectResult: (r) => expect(r).toEqual([fakeTranslation(ENGLISH_TALK[0]!, "es")]),
  });
});

describe("workers-ai m2m100", () => {
  const h = useFixture(WORKERS_AI_M2M100.start);

  it("reports a glossary term the model lost, keeping its translation", async () => {
    h().fake.model("@cf/meta/m2m100-1.2b", (input) => ({ translated_text: String(input.text).replace(/xg\d+x/i, "servidor") }));
    const drops: GlossaryDrop[] = [];
    const out = await translate(h().engine(), ["Hello", "Restart the media server."], {
      glossary: GLOSSARY,
      onGlossaryDropped: (d) => drops.push(d),
    });
    expect(out).toEqual(["Hello", "Restart the servidor."]);
    expect(drops).toEqual([{ index: 1, term: "media server", preferred: "MediaBox" }]);
  });
});

describe.each(LANGUAGE_MODEL_TRANSLATORS)("$label language model", (backend) => {
  const h = useFixture(backend.start);
  const answer = (translations: unknown) => JSON.stringify({ translations });

  it("asks once more, saying what was wrong, when the answer has the wrong number of translations", async () => {
    h().says(answer(["uno"]));
    expect(await translate(h().engine(), ENGLISH_TALK)).toEqual(h().spanish);
    expect(h().heard).toHaveLength(2);
    expect(h().heard[1]!.at(-1)!.content).toContain("- translations: 1 strings for 3 texts; exactly one per text is required");
  });

  it("fails retryably, naming engine, model and the problem, after two answers that are not JSON", async () => {
    h().says("Claro, aquí está:", "Lo siento.");
    const f = await rejectionOf(translate(h().engine(), ENGLISH_TALK), StepFailure);
    expect(f).toMatchObject({ code: "processing_failed", retryable: true });
    expect(f.message).toMatch(
      new RegExp(
        `^${backend.engine} \\(${backend.model}\\): answered no valid translations in 2 requests: the answer is not a JSON object`,
      ),
    );
  });

  it("asks again when a non-empty text comes back empty", async () => {
    h().says(answer(["a", "", "c"]));
    expect(await translate(h().engine(), ENGLISH_TALK)).toEqual(h().spanish);
    expect(h().heard[1]!.at(-1)!.content).toContain("- translations[1]: empty, for a text that is not");
  });

  it("tells the model the glossary terms the texts contain, with their spelling", async () => {
    await translate(h().engine(), ["Restart the media server.", "Nothing here."], {
      glossary: [...GLOSSARY, { term: "unused", preferred: "X" }],
    });
    const system = h().heard[0]!.find((t) => t.role === "system")!.content;
    expect(system).toContain('- "media server" → write exactly "MediaBox" (do not translate it)');
    expect(system).not.toContain("unused");
  });

  it("asks again when a glossary term is missing, and reports it when still missing, keeping the translation", async () => {
    h().says(answer(["Reinicie el servidor."]), answer(["Reinicie el servidor de medios."]));
    const drops: GlossaryDrop[] = [];
    const out = await translate(h().engine(), ["Restart the media server."], {
      glossary: GLOSSARY,
      onGlossaryDropped: (d) => drops.push(d),
    });
    expect(out).toEqual(["Reinicie el servidor de medios."]);
    expect(h().heard[1]!.at(-1)!.content).toContain('- translations[0]: the glossary requires "MediaBox" for "media server"');
    expect(drops).toEqual([{ index: 0, term: "media server", preferred: "MediaBox" }]);
  });

  it("sends long transcripts in chunks of at most 40 texts, keeping every text's place", async () => {
    const texts = Array.from({ length: 95 }, (_, i) => `Line ${i}.`);
    const out = await translate(h().engine(), texts);
    expect(out).toEqual(texts.map((t) => fakeTranslation(t, "es")));
    expect(h().heard).toHaveLength(3);
  });
});

describe("createTranslationEngine", () => {
  it("makes Apertium through its command when no engine is named and APERTIUM_APY_URL is not set", () => {
    expect(createTranslationEngine(undefined, {})).toMatchObject({ engine: "apertium", transport: "cli" });
  });

  it("makes Apertium through apertium-apy when APERTIUM_APY_URL is set", () => {
    expect(createTranslationEngine("apertium", { APERTIUM_APY_URL: "http://127.0.0.1:2737" })).toMatchObject({
      engine: "apertium",
      transport: "apy",
    });
  });

  it("is unavailable for an engine it does not know, listing the ones it does", () => {
    expect(() => createTranslationEngine("babelfish", {})).toThrow(
      expect.objectContaining({
        code: "engine_unavailable",
        retryable: true,
        message: "translation engine babelfish is not known on this runner (known: apertium, workers-ai, replicate, openai-compatible)",
      }),
    );
  });

  it("takes the model from the options, and for openai-compatible from OPENAI_COMPAT_TRANSLATION_MODEL first", () => {
    const env = { CLOUDFLARE_ACCOUNT_ID: "a", CLOUDFLARE_API_TOKEN: "t", OPENAI_COMPAT_BASE_URL: "http://127.0.0.1:9" };
    expect(createTranslationEngine("workers-ai", env, { model: "@cf/meta/m2m100-1.2b-next" }).modelFor("en", "es")).toBe(
      "@cf/meta/m2m100-1.2b-next",
    );
    expect(
      createTranslationEngine("openai-compatible", { ...env, OPENAI_COMPAT_TRANSLATION_MODEL: "qwen2.5:7b" }, { model: "x" }).modelFor(
        "en",
        "es",
      ),
    ).toBe("qwen2.5:7b");
  });
});
