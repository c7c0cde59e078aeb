import { describe, expect, it } from "vitest";
import { loadIabIds } from "../../../gpu-runner/engines/text/iab-ids";
import { metadataMessages, shownMaterial } from "../../../gpu-runner/engines/text/prompt";
import { useFixture } from "../../support/engine-conformance";
import { metadataAnswer, REPLICATE, TOMATO_TALK } from "../../support/text-backends";

/** Replicate's predictions API with a Llama 3 instruct model; shared behaviour is in text.conformance.test.ts. */
const h = useFixture(REPLICATE.start);
const metadata = (model?: string, signal = AbortSignal.timeout(20_000)) =>
  h()
    .engine({}, model ? { model } : {})
    .metadata({ doc: TOMATO_TALK, signal });
const creates = () => h().fake.requests.filter((r) => r.method === "POST");
const inputOf = (i: number) => (creates()[i]!.json() as { input: { system_prompt: string; prompt: string } }).input;

const VALID = JSON.stringify(metadataAnswer());

describe("replicate text engine", () => {
  it("creates a prediction of meta/meta-llama-3-8b-instruct with { system_prompt, prompt, max_tokens, temperature: 0 }, the token and Prefer: wait", async () => {
    await metadata();
    const req = h().fake.requests[0]!;
    expect(req.method).toBe("POST");
    expect(req.path).toBe("/v1/models/meta/meta-llama-3-8b-instruct/predictions");
    expect(req.headers.authorization).toBe("Bearer r8-token");
    expect(req.headers.prefer).toMatch(/^wait=\d+$/);
    const [system, user] = metadataMessages(TOMATO_TALK, shownMaterial(TOMATO_TALK), loadIabIds().tier1);
    expect(req.json()).toEqual({ input: { system_prompt: system!.content, prompt: user!.content, max_tokens: 1500, temperature: 0 } });
  });

  it("joins the output's tokens into the answer", async () => {
    h().fake.version("v-tokens", "acme/tokens", () => ['{"ti', 'tle": "Balcony', ' tomatoes"', VALID.slice(VALID.indexOf(","))]);
    expect((await metadata("acme/tokens")).title).toBe("Balcony tomatoes");
  });

  it("takes an output that is one string as it is", async () => {
    h().fake.version("v-string", "acme/string", () => `Here it is:\n${VALID}`);
    expect((await metadata("acme/string")).title).toBe("Balcony tomatoes");
  });

  it("runs a model named with its version by POST /predictions", async () => {
    h().fake.version("0123abcd", "acme/llama-tuned", () => VALID);
    expect((await metadata("acme/llama-tuned:0123abcd")).title).toBe("Balcony tomatoes");
    expect(h().fake.requests[0]!.path).toBe("/v1/predictions");
    expect(h().fake.requests[0]!.json()).toMatchObject({ version: "0123abcd" });
  });

  it("asks again with the first prompt, the previous answer and the problems in one prompt", async () => {
    const said = VALID.replace('"Start"', '""');
    h().says(said);
    await metadata();
    expect(inputOf(1).system_prompt).toBe(inputOf(0).system_prompt);
    expect(inputOf(1).prompt).toBe(
      `${inputOf(0).prompt}\n\nYour previous answer was:\n${said}\n\n` +
        "Your answer cannot be used as it is:\n- chapters[0].title: must not be empty\nAnswer again with the whole JSON object, corrected, and nothing else.",
    );
  });

  it("polls a prediction still running until it succeeds", async () => {
    h().fake.plan({ polls: 2 });
    expect((await metadata()).title).toBe("Growing tomatoes on a small balcony");
    const id = [...h().fake.predictions.keys()][0]!;
    expect(
      h()
        .fake.requests.slice(1)
        .map((q) => `${q.method} ${q.path}`),
    ).toEqual([`GET /v1/predictions/${id}`, `GET /v1/predictions/${id}`]);
  });

  it("runs a new prediction when one fails on Replicate's side", async () => {
    h().fake.plan({ outcome: "failed", error: "CUDA out of memory" });
    expect((await metadata()).title).toBe("Growing tomatoes on a small balcony");
    expect(h().fake.predictions.size).toBe(2);
  });

  it("fails naming engine and model when the output is not text", async () => {
    h().fake.version("v-image", "acme/image", () => ({ url: "https://replicate.delivery/x.png" }));
    await expect(metadata("acme/image")).rejects.toMatchObject({
      retryable: true,
      message: expect.stringMatching(/^replicate \(acme\/image\): prediction fake\d+ has no text output$/),
    });
  });
});
