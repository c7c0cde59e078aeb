import { describe, expect, it } from "vitest";
import { metadataJsonSchema, summaryJsonSchema } from "../../../gpu-runner/engines/text/answer";
import { loadIabIds } from "../../../gpu-runner/engines/text/iab-ids";
import { metadataMessages, shownMaterial, summaryMessages } from "../../../gpu-runner/engines/text/prompt";
import { useFixture } from "../../support/engine-conformance";
import { metadataAnswer, TOMATO_SCENES, TOMATO_TALK, WORKERS_AI } from "../../support/text-backends";

/** Workers AI's REST format and JSON mode for the text engines; shared behaviour is in text.conformance.test.ts. */
const h = useFixture(WORKERS_AI.start);
const MODEL = "@cf/meta/llama-3.1-8b-instruct";
const signal = () => AbortSignal.timeout(20_000);
const metadata = (model?: string) =>
  h()
    .engine({}, model ? { model } : {})
    .metadata({ doc: TOMATO_TALK, signal: signal() });
const bodies = () => h().fake.requests.map((r) => r.json() as { messages: { role: string; content: string }[] });

const VALID = metadataAnswer();

describe("workers-ai text engine", () => {
  it("POSTs { messages, max_tokens, temperature: 0, response_format: json_schema of the draft } to accounts/{account}/ai/run/{model} with the API token", async () => {
    await metadata();
    const req = h().fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe(`/client/v4/accounts/acc123/ai/run/${MODEL}`);
    expect(req.headers.authorization).toBe("Bearer cf-token");
    expect(req.json()).toEqual({
      messages: metadataMessages(TOMATO_TALK, shownMaterial(TOMATO_TALK), loadIabIds().tier1),
      max_tokens: 1500,
      temperature: 0,
      response_format: { type: "json_schema", json_schema: metadataJsonSchema() },
    });
  });

  it("holds a summary to the summary's JSON schema, with the scenes in the messages", async () => {
    await h().engine().summarize({ doc: TOMATO_TALK, visualChunks: TOMATO_SCENES, signal: signal() });
    expect(h().fake.requests[0]!.json()).toMatchObject({
      messages: summaryMessages(TOMATO_TALK, shownMaterial(TOMATO_TALK, TOMATO_SCENES), loadIabIds().tier1),
      response_format: { type: "json_schema", json_schema: summaryJsonSchema() },
    });
  });

  it("reads the response JSON mode already parsed into an object", async () => {
    h().fake.model(MODEL, () => ({ response: VALID, usage: {} }));
    expect((await metadata()).title).toBe("Balcony tomatoes");
  });

  it("reads a text response too, fenced or not, from a model that ignored JSON mode", async () => {
    h().fake.model(MODEL, () => ({ response: `\`\`\`json\n${JSON.stringify(VALID)}\n\`\`\`` }));
    expect((await metadata()).title).toBe("Balcony tomatoes");
  });

  it("asks again when JSON Mode couldn't be met, with the problem and no assistant turn", async () => {
    h().says("Here you go: a title about tomatoes.");
    expect((await metadata()).title).toBe("Growing tomatoes on a small balcony");
    const [first, retry] = bodies();
    expect(retry!.messages).toEqual([
      ...first!.messages,
      {
        role: "user",
        content:
          "Your answer cannot be used as it is:\n- the answer is not a JSON object (JSON Mode couldn't be met)\nAnswer again with the whole JSON object, corrected, and nothing else.",
      },
    ]);
  });

  it("repeats an answer JSON mode parsed as its JSON text in the retry's assistant turn", async () => {
    const tooLong = { ...VALID, title: "T".repeat(71) };
    h().says(JSON.stringify(tooLong));
    await metadata();
    expect(bodies()[1]!.messages.at(-2)).toEqual({ role: "assistant", content: JSON.stringify(tooLong) });
  });

  it("runs the model the factory names", async () => {
    h().fake.model("@cf/meta/llama-3.3-70b-instruct-fp8-fast", () => ({ response: VALID }));
    expect((await metadata("@cf/meta/llama-3.3-70b-instruct-fp8-fast")).title).toBe("Balcony tomatoes");
    expect(h().fake.requests[0]!.path).toBe("/client/v4/accounts/acc123/ai/run/@cf/meta/llama-3.3-70b-instruct-fp8-fast");
  });

  it("fails naming engine and model when the envelope carries no result", async () => {
    h().fake.model(MODEL, () => null);
    await expect(metadata()).rejects.toMatchObject({
      retryable: true,
      message: `workers-ai (${MODEL}): answered without a response: no result`,
    });
  });

  it("fails at once, not retryable, when Workers AI rejects the input for another reason (400 in its envelope)", async () => {
    h().fake.model(MODEL, () => {
      throw new Error("AiError: Bad input: messages too long");
    });
    await expect(metadata()).rejects.toMatchObject({
      retryable: false,
      message: `workers-ai (${MODEL}): rejected with HTTP 400: bad request: AiError: Bad input: messages too long`,
    });
    expect(h().fake.requests).toHaveLength(1);
  });
});
