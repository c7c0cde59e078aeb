import { describe, expect, it } from "vitest";
import { loadIabIds } from "../../../gpu-runner/engines/text/iab-ids";
import { metadataMessages, shownMaterial } from "../../../gpu-runner/engines/text/prompt";
import { useFixture } from "../../support/engine-conformance";
import { metadataAnswer, OPENAI_COMPATIBLE, TOMATO_TALK } from "../../support/text-backends";

/** OpenAI's chat/completions format for the text engines; shared behaviour is in text.conformance.test.ts. */
const h = useFixture(OPENAI_COMPATIBLE.start);
const metadata = (env = {}) =>
  h()
    .engine(env)
    .metadata({ doc: TOMATO_TALK, signal: AbortSignal.timeout(20_000) });
const bodies = () => h().fake.requests.map((r) => r.json() as { model: string; messages: { role: string; content: string }[] });

const VALID = JSON.stringify(metadataAnswer());

describe("openai-compatible text engine", () => {
  it("POSTs { model, messages, temperature: 0, max_tokens: 1500, response_format: json_object } to /v1/chat/completions with the API key", async () => {
    await metadata();
    const req = h().fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.json()).toEqual({
      model: "llama3.1:8b",
      messages: metadataMessages(TOMATO_TALK, shownMaterial(TOMATO_TALK), loadIabIds().tier1),
      temperature: 0,
      max_tokens: 1500,
      response_format: { type: "json_object" },
    });
  });

  it("asks again with the first conversation, the model's answer as an assistant turn and the problems as a user turn", async () => {
    const said = VALID.replace('"Start"', '""');
    h().says(said);
    await metadata();
    const [first, retry] = bodies();
    expect(retry!.messages).toEqual([
      ...first!.messages,
      { role: "assistant", content: said },
      {
        role: "user",
        content:
          "Your answer cannot be used as it is:\n- chapters[0].title: must not be empty\nAnswer again with the whole JSON object, corrected, and nothing else.",
      },
    ]);
  });

  it("takes the model from OPENAI_COMPAT_TEXT_MODEL before the factory's option", async () => {
    expect(h().engine({}, { model: "qwen2.5:7b-instruct" }).generatedBy.model).toBe("qwen2.5:7b-instruct");
    await metadata({ OPENAI_COMPAT_TEXT_MODEL: "meta-llama/Llama-3.1-8B-Instruct" });
    expect(bodies()[0]!.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
  });

  it("reads an answer in a markdown fence with a sentence around it", async () => {
    h().says(`Sure! Here is the JSON:\n\`\`\`json\n${VALID}\n\`\`\`\nHope it helps.`);
    expect((await metadata()).title).toBe("Balcony tomatoes");
    expect(h().fake.requests).toHaveLength(1);
  });

  it("asks again when the message comes back empty", async () => {
    h().says("");
    expect((await metadata()).title).toBe("Growing tomatoes on a small balcony");
    expect(bodies()[1]!.messages.at(-1)!.content).toContain("- the answer is not a JSON object (an empty message, finish_reason stop)");
  });

  it("fails at once naming engine and model when the model refuses", async () => {
    h().fake.chatAnswer = {
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: null, refusal: "I can't help with that." }, finish_reason: "stop" }],
    };
    await expect(metadata()).rejects.toMatchObject({
      retryable: true,
      message: "openai-compatible (llama3.1:8b): refused to answer: I can't help with that.",
    });
    expect(h().fake.requests).toHaveLength(1);
  });
});
