import { describe, expect, it } from "vitest";
import {
  OPENAI_FILE_MAX_BYTES,
  OpenAiFieldError,
  parseOpenAiTranscription,
  promptTerms,
  type OpenAiTranscriptionRequest,
} from "../../contracts/openai-transcription-request";

/** The form fields of OpenAI's transcription request, checked and turned into a transcription job's options. */

const audio = (name = "talk.mp3", size = 16) => new File([new Uint8Array(size)], name);

/** A form as the `openai` client builds it: list fields repeat under `name[]`. */
function form(fields: Record<string, string | string[]>, file: File | null = audio()): FormData {
  const f = new FormData();
  if (file) f.append("file", file);
  for (const [name, value] of Object.entries(fields))
    for (const v of [value].flat()) f.append(Array.isArray(value) ? `${name}[]` : name, v);
  return f;
}

const parse = (fields: Record<string, string | string[]>, file?: File | null): OpenAiTranscriptionRequest =>
  parseOpenAiTranscription(form({ model: "whisper-1", ...fields }, file));

function refusal(fields: Record<string, string | string[]>, file?: File | null): Pick<OpenAiFieldError, "path" | "issue" | "status"> {
  try {
    parse(fields, file);
  } catch (err) {
    if (err instanceof OpenAiFieldError) return { path: err.path, issue: err.issue, status: err.status };
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("what a request becomes", () => {
  it("a minimal request is json, no language, no vocabulary, and records its model", () => {
    expect(parse({})).toMatchObject({
      model: "whisper-1",
      responseFormat: "json",
      granularities: [],
      language: null,
      vocabulary: [],
      temperature: null,
    });
  });

  it("any model name is taken as sent", () => {
    expect(parse({ model: "my-fine-tune:v3" }).model).toBe("my-fine-tune:v3");
  });

  it("timestamp_granularities[] is read as the client sends it, each once", () => {
    expect(parse({ response_format: "verbose_json", timestamp_granularities: ["word", "segment", "word"] }).granularities).toEqual([
      "word",
      "segment",
    ]);
  });

  it("languages[] becomes the job's list of languages; one language is a hint", () => {
    expect(parse({ languages: ["en", "es"] }).language).toEqual(["en", "es"]);
    expect(parse({ language: "en" }).language).toBe("en");
  });

  it("keywords[] come first in the vocabulary, then the prompt's terms, each once whatever its case", () => {
    expect(parse({ keywords: ["Kubernetes"], prompt: "kubernetes, TikTok; Okonkwo." }).vocabulary).toEqual([
      "Kubernetes",
      "TikTok",
      "Okonkwo",
    ]);
  });

  it("temperature is taken (and ignored by the job)", () => {
    expect(parse({ temperature: "0.2" }).temperature).toBe(0.2);
  });

  it("fields OpenAI documents for its own models are accepted and change nothing", () => {
    expect(parse({ chunking_strategy: "auto", include: ["logprobs"], stream: "false" })).toMatchObject({ responseFormat: "json" });
  });
});

describe("a prompt as vocabulary", () => {
  it("splits at commas, semicolons, line breaks and sentence ends", () => {
    expect(promptTerms("Okonkwo, Kubernetes. TikTok;\nAcme Corp! Why?")).toEqual(["Okonkwo", "Kubernetes", "TikTok", "Acme Corp", "Why"]);
  });

  it("keeps a dot inside a term (a version, a domain)", () => {
    expect(promptTerms("Node.js, example.com")).toEqual(["Node.js", "example.com"]);
  });

  it("drops a piece longer than a vocabulary term: prose is no term", () => {
    expect(promptTerms("This is a long sentence about the meeting we had yesterday with the whole team, Okonkwo")).toEqual(["Okonkwo"]);
  });
});

describe("refusals", () => {
  it.each<[string, Record<string, string | string[]>, File | null | undefined, { path: string; issue: string }]>([
    ["no file", {}, null, { path: "file", issue: "required" }],
    ["an empty file", {}, audio("a.mp3", 0), { path: "file", issue: "tooSmall" }],
    ["a file of another type", {}, audio("notes.pdf"), { path: "file", issue: "unsupportedExtension" }],
    ["a field of no OpenAI request", { diarize: "true" }, undefined, { path: "diarize", issue: "notAllowed" }],
    ["an unknown response_format", { response_format: "diarized_json" }, undefined, { path: "response_format", issue: "invalidValue" }],
    [
      "an unknown granularity",
      { timestamp_granularities: ["token"] },
      undefined,
      { path: "timestamp_granularities[]", issue: "invalidValue" },
    ],
    ["a language name instead of a code", { language: "English" }, undefined, { path: "language", issue: "invalidFormat" }],
    ["language and languages[] together", { language: "en", languages: ["es"] }, undefined, { path: "languages[]", issue: "conflict" }],
    ["temperature above 1", { temperature: "1.5" }, undefined, { path: "temperature", issue: "invalid" }],
    ["temperature that is no number", { temperature: "warm" }, undefined, { path: "temperature", issue: "invalid" }],
    ["streaming", { stream: "true" }, undefined, { path: "stream", issue: "unsupported" }],
    ["a prompt over 4096 characters", { prompt: "x".repeat(4097) }, undefined, { path: "prompt", issue: "tooBig" }],
    ["a keyword over 50 characters", { keywords: ["k".repeat(51)] }, undefined, { path: "keywords[]", issue: "invalid" }],
    ["an empty model", { model: "  " }, undefined, { path: "model", issue: "invalid" }],
  ])("%s is 422", (_, fields, file, expected) => {
    expect(refusal(fields, file)).toEqual({ ...expected, status: 422 });
  });

  it("a model field sent twice is a duplicate", () => {
    const f = form({ model: "whisper-1" });
    f.append("model", "gpt-4o-transcribe");
    expect(() => parseOpenAiTranscription(f)).toThrow(expect.objectContaining({ path: "model", issue: "duplicate" }));
  });

  it("a file over 25 MiB is 413; one of exactly 25 MiB is taken", () => {
    expect(refusal({}, audio("big.wav", OPENAI_FILE_MAX_BYTES + 1))).toEqual({ path: "file", issue: "tooBig", status: 413 });
    expect(parse({}, audio("big.wav", OPENAI_FILE_MAX_BYTES)).file.size).toBe(OPENAI_FILE_MAX_BYTES);
  });

  it("an extension is matched whatever its case", () => {
    expect(parse({}, audio("Talk.M4A")).file.name).toBe("Talk.M4A");
  });
});
