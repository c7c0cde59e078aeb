import { describe, expect, it } from "vitest";
import { translationMessages } from "../../../gpu-runner/engines/translation/language-model";
import { useFixture } from "../../support/engine-conformance";
import { REPLICATE_TRANSLATOR } from "../../support/translation-backends";

/** A Llama 3 instruct model on Replicate's predictions API; shared behaviour is in translation.conformance.test.ts. */
const h = useFixture(REPLICATE_TRANSLATOR.start);
const translate = (texts: string[], model?: string) =>
  h()
    .engine({}, model ? { model } : {})
    .translate({ source: "en", target: "es", texts, signal: AbortSignal.timeout(20_000) });

describe("replicate translation engine", () => {
  it("creates a prediction of meta/meta-llama-3-8b-instruct with { system_prompt, prompt, max_tokens, temperature: 0 }", async () => {
    await translate(["Good morning."]);
    const req = h().fake.requests[0]!;
    expect([req.method, req.path, req.headers.authorization]).toEqual([
      "POST",
      "/v1/models/meta/meta-llama-3-8b-instruct/predictions",
      "Bearer r8-token",
    ]);
    const [system, user] = translationMessages("en", "es", ["Good morning."], []);
    expect(req.json()).toEqual({ input: { system_prompt: system!.content, prompt: user!.content, max_tokens: 2048, temperature: 0 } });
  });

  it("joins the output's tokens into the answer", async () => {
    h().fake.version("v-tokens", "acme/tokens", () => ['{"transl', 'ations": ["Buenos', ' días."]}']);
    expect(await translate(["Good morning."], "acme/tokens")).toEqual(["Buenos días."]);
  });

  it("asks again with the first prompt, the previous answer and the problems in one prompt", async () => {
    h().says('{"translations": []}');
    await translate(["Good morning."]);
    const prompts = h()
      .fake.requests.filter((r) => r.method === "POST")
      .map((r) => (r.json() as { input: { prompt: string } }).input.prompt);
    expect(prompts[1]).toBe(
      `${prompts[0]}\n\nYour previous answer was:\n{"translations": []}\n\n` +
        "Your answer cannot be used as it is:\n- translations: 0 strings for 1 texts; exactly one per text is required\n" +
        "Answer again with the whole JSON object, corrected, and nothing else.",
    );
  });
});
