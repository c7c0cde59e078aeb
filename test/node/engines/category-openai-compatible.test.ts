import { describe, expect, it } from "vitest";
import { transcriptExcerpt, TRANSCRIPT_EXCERPT_CHARS } from "../../../gpu-runner/engines/category/prompt";
import { OPENAI_COMPATIBLE, PODCAST_TEXT } from "../../support/category-backends";
import { useFixture } from "../../support/engine-conformance";

/** OpenAI's chat/completions format and the prompt; shared behaviour is in category.conformance.test.ts. */
const h = useFixture(OPENAI_COMPATIBLE.start);
const signal = () => AbortSignal.timeout(20_000);

describe("openai-compatible category engine", () => {
  it("POSTs { model, messages, temperature: 0, max_tokens, response_format: json_object } to /v1/chat/completions with the API key", async () => {
    await h()
      .engine()
      .classify({ ...h().request({ categories: ["podcast", "interview"] }), signal: signal() });
    const req = h().fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers.authorization).toBe("Bearer sk-test");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.json()).toEqual({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: expect.stringContaining('Allowed categories: "podcast", "interview".') },
        { role: "user", content: expect.stringContaining(PODCAST_TEXT) },
      ],
      temperature: 0,
      max_tokens: 200,
      response_format: { type: "json_object" },
    });
  });

  it("asks for a JSON object {category, confidence} in the instructions", async () => {
    await h()
      .engine()
      .classify({ ...h().request(), signal: signal() });
    const [system] = (h().fake.requests[0]!.json() as { messages: { content: string }[] }).messages;
    expect(system!.content).toContain(
      'Answer with a JSON object only, no other text: {"category": <one of the allowed categories, spelled exactly as listed>, "confidence": <a number from 0 to 1: how sure you are>}.',
    );
  });

  it("sends no authorization header without OPENAI_COMPAT_API_KEY", async () => {
    await expect(
      h()
        .engine({ OPENAI_COMPAT_API_KEY: undefined })
        .classify({ ...h().request(), signal: signal() }),
    ).rejects.toMatchObject({ retryable: false, message: expect.stringContaining("rejected with HTTP 401") });
    expect(h().fake.requests[0]!.headers.authorization).toBeUndefined();
  });

  it("takes the model from OPENAI_COMPAT_CATEGORY_MODEL before the factory's option", async () => {
    expect(h().engine({}, "qwen2.5-7b-instruct").model).toBe("qwen2.5-7b-instruct");
    const engine = h().engine({ OPENAI_COMPAT_CATEGORY_MODEL: "meta-llama/Llama-3.1-8B-Instruct" }, "qwen2.5-7b-instruct");
    expect(engine.model).toBe("meta-llama/Llama-3.1-8B-Instruct");
    await engine.classify({ ...h().request(), signal: signal() });
    expect(h().fake.requests[0]!.json()).toMatchObject({ model: "meta-llama/Llama-3.1-8B-Instruct" });
  });

  it("puts the visual summary's numbers and the start of a long transcript, cut at a word, in the prompt", async () => {
    const words = Array.from({ length: 3000 }, (_, i) => `word${i}`);
    const text = words.join("  \n");
    await h()
      .engine()
      .classify({
        ...h().request({ text, visual: { meanFaces: 1.234, maxFaces: 3, cutsPerMinute: 12.5, speechShare: 0.456, speakers: 2 } }),
        signal: signal(),
      });
    const [, user] = (h().fake.requests[0]!.json() as { messages: { content: string }[] }).messages;
    const flat = words.join(" ");
    const excerpt = transcriptExcerpt(flat);
    expect(excerpt.length).toBeLessThanOrEqual(TRANSCRIPT_EXCERPT_CHARS);
    expect(flat.startsWith(`${excerpt} `)).toBe(true);
    expect(user!.content).toBe(
      [
        "Picture (from sampled frames):",
        "- faces per frame: mean 1.23, max 3",
        "- distinct speakers seen: 2",
        "- scene cuts per minute: 12.5",
        "- share of the video with speech: 46%",
        "",
        `Transcript (the first ${excerpt.length} of ${flat.length} characters):`,
        '"""',
        excerpt,
        '"""',
      ].join("\n"),
    );
  });

  it("says when face detection did not run, and when nothing was said", async () => {
    await h()
      .engine()
      .classify({
        ...h().request({ text: " ", visual: { meanFaces: null, maxFaces: null, cutsPerMinute: 0, speechShare: 0, speakers: null } }),
        signal: signal(),
      });
    const [, user] = (h().fake.requests[0]!.json() as { messages: { content: string }[] }).messages;
    expect(user!.content).toContain(
      "- faces per frame: unknown (no face detection)\n- distinct speakers seen: unknown (no face detection)",
    );
    expect(user!.content).toMatch(/\n\nTranscript: \(no speech\)$/);
  });

  it("fails naming engine and model when the answer has no choices", async () => {
    h().fake.chatAnswer = { id: "chatcmpl-1", object: "chat.completion", choices: [] };
    await expect(
      h()
        .engine()
        .classify({ ...h().request(), signal: signal() }),
    ).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(/^openai-compatible \(gpt-4o-mini\): answered without a chat completion: /),
    });
    expect(h().fake.requests).toHaveLength(1);
  });

  it("fails naming engine and model when the model refuses", async () => {
    h().fake.chatAnswer = {
      object: "chat.completion",
      choices: [{ index: 0, message: { role: "assistant", content: null, refusal: "I can't help with that." }, finish_reason: "stop" }],
    };
    await expect(
      h()
        .engine()
        .classify({ ...h().request(), signal: signal() }),
    ).rejects.toMatchObject({ retryable: true, message: "openai-compatible (gpt-4o-mini): refused to answer: I can't help with that." });
  });
});
