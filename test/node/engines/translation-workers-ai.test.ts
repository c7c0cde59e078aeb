import { describe, expect, it } from "vitest";
import { useFixture } from "../../support/engine-conformance";
import { WORKERS_AI_M2M100 } from "../../support/translation-backends";

/** `@cf/meta/m2m100-1.2b` over Workers AI's REST API; shared behaviour is in translation.conformance.test.ts. */
const h = useFixture(WORKERS_AI_M2M100.start);
const translate = (texts: string[], source = "en", target = "es") =>
  h()
    .engine()
    .translate({ source, target, texts, signal: AbortSignal.timeout(20_000) });

describe("workers-ai translation engine", () => {
  it("posts { text, source_lang, target_lang } to the model's run route with the API token, one text per request", async () => {
    await translate(["Hello there.", "Good night."]);
    expect(h().fake.requests.map((r) => [r.method, r.path, r.headers.authorization])).toEqual([
      ["POST", "/client/v4/accounts/acc123/ai/run/@cf/meta/m2m100-1.2b", "Bearer cf-token"],
      ["POST", "/client/v4/accounts/acc123/ai/run/@cf/meta/m2m100-1.2b", "Bearer cf-token"],
    ]);
    expect(
      h()
        .fake.requests.map((r) => r.json())
        .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ).toEqual([
      { text: "Good night.", source_lang: "en", target_lang: "es" },
      { text: "Hello there.", source_lang: "en", target_lang: "es" },
    ]);
  });

  it("sends the model's base language codes for regional requests", async () => {
    await translate(["Olá."], "pt-BR", "es-419");
    expect(h().fake.requests[0]!.json()).toEqual({ text: "Olá.", source_lang: "pt", target_lang: "es" });
  });

  it("reads result.translated_text", async () => {
    h().fake.model("@cf/meta/m2m100-1.2b", () => ({ translated_text: " Hola. " }));
    expect(await translate(["Hello."])).toEqual(["Hola."]);
  });

  it("fails retryably, naming engine and model, on a result without translated_text", async () => {
    h().fake.model("@cf/meta/m2m100-1.2b", () => ({ translation: "Hola." }));
    await expect(translate(["Hello."])).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(/^workers-ai \(@cf\/meta\/m2m100-1\.2b\): answered without a translated_text/),
    });
  });

  it("keeps at most four requests in flight", async () => {
    let inFlight = 0;
    let most = 0;
    h().fake.model("@cf/meta/m2m100-1.2b", async (input) => {
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 20));
      inFlight -= 1;
      return { translated_text: String(input.text) };
    });
    await translate(Array.from({ length: 12 }, (_, i) => `Text ${i}.`));
    expect(most).toBe(4);
  });
});
