import { describe, expect, it } from "vitest";
import { translationMessages } from "../../../gpu-runner/engines/translation/language-model";
import { useFixture } from "../../support/engine-conformance";
import { OPENAI_COMPATIBLE_TRANSLATOR } from "../../support/translation-backends";

/** A chat model behind an OpenAI-compatible server; shared behaviour is in translation.conformance.test.ts. */
const h = useFixture(OPENAI_COMPATIBLE_TRANSLATOR.start);
const translate = (texts: string[]) =>
  h()
    .engine()
    .translate({ source: "en", target: "pt-BR", texts, signal: AbortSignal.timeout(20_000) });

describe("openai-compatible translation engine", () => {
  it("posts the translation conversation to /v1/chat/completions in JSON mode, at temperature 0, with the API key", async () => {
    await translate(["Good morning.", "See you."]);
    const req = h().fake.requests[0]!;
    expect([req.method, req.path, req.headers.authorization]).toEqual(["POST", "/v1/chat/completions", "Bearer sk-test"]);
    expect(req.json()).toEqual({
      model: "llama3.1:8b",
      messages: translationMessages("en", "pt-BR", ["Good morning.", "See you."], []),
      temperature: 0,
      max_tokens: 2048,
      response_format: { type: "json_object" },
    });
  });

  it("names the languages and gives the texts as one JSON line", () => {
    const [system, user] = translationMessages("en", "pt-BR", ['She said "hi"', "line\\break"], []);
    expect(system!.content).toContain("from English (en) into Brazilian Portuguese (pt-BR).");
    expect(system!.content).toContain('{"translations": [<string>, ...]} with exactly 2 strings.');
    expect(user!.content).toBe(`Texts (2):\n${JSON.stringify({ texts: ['She said "hi"', "line\\break"] })}`);
  });

  it("reads the JSON object out of a fenced answer", async () => {
    h().says('```json\n{"translations": ["Bom dia."]}\n```');
    expect(await translate(["Good morning."])).toEqual(["Bom dia."]);
  });

  it("fails at once, naming engine and model, when the model refuses", async () => {
    h().fake.chatAnswer = { choices: [{ index: 0, message: { role: "assistant", content: null, refusal: "No." }, finish_reason: "stop" }] };
    await expect(translate(["Good morning."])).rejects.toMatchObject({
      message: "openai-compatible (llama3.1:8b): refused to answer: No.",
    });
  });
});
