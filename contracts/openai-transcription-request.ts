import { z } from "zod";
import { LanguageCodeSchema, VOCABULARY_MAX_TERMS, VOCABULARY_TERM_MAX_CHARS } from "./request-fields";

/**
 * The form fields of `POST /v1/audio/transcriptions`, OpenAI's transcription request
 * (platform.openai.com/docs/api-reference/audio/createTranscription, and the `openai` npm client's
 * `TranscriptionCreateParams`), checked and turned into what a transcription job takes. Pure: the
 * route hands it the parsed multipart form; docs/api.md "OpenAI-compatible transcription" is the prose.
 */

/** The route, as OpenAI's clients call it under a base URL ending in `/v1`. */
export const OPENAI_UPLOAD_PATH = "/v1/audio/transcriptions";

/** OpenAI's limit ("25 MB"), taken as MiB: a file of this many bytes is accepted, one more is 413. */
export const OPENAI_FILE_MAX_BYTES = 25 * 1024 * 1024;
/** Room for the form's other fields and the multipart framing around the file. */
export const OPENAI_FORM_OVERHEAD_BYTES = 256 * 1024;

/** The file types OpenAI lists for `file`, by extension (the runner still checks the bytes themselves). */
export const OPENAI_AUDIO_EXTENSIONS = ["flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm"] as const;

export const OPENAI_RESPONSE_FORMATS = ["json", "text", "srt", "vtt", "verbose_json"] as const;
export type OpenAiResponseFormat = (typeof OPENAI_RESPONSE_FORMATS)[number];

export const TIMESTAMP_GRANULARITIES = ["segment", "word"] as const;
export type TimestampGranularity = (typeof TIMESTAMP_GRANULARITIES)[number];

/** OpenAI's own model names: every one is answered by the platform's configured speech engine. */
export const OPENAI_WELL_KNOWN_MODELS = [
  "whisper-1",
  "gpt-transcribe",
  "gpt-4o-transcribe",
  "gpt-4o-mini-transcribe",
  "gpt-4o-mini-transcribe-2025-12-15",
  "gpt-4o-transcribe-diarize",
] as const;

/** Longest `prompt` taken: far above what Whisper reads (224 tokens), short enough to bound the work. */
export const OPENAI_PROMPT_MAX_CHARS = 4096;

const MODEL_MAX_CHARS = 256;

/**
 * The fields taken, and how many values each may have (`[]` fields repeat). Fields of OpenAI's that
 * change nothing here are taken and ignored (`temperature`, `chunking_strategy`, `include[]`); any
 * other field is refused, so a misspelt option is never silently dropped.
 */
const SINGLE_FIELDS = ["file", "model", "language", "prompt", "response_format", "temperature", "stream", "chunking_strategy"] as const;
const LIST_FIELDS = ["timestamp_granularities", "keywords", "languages", "include"] as const;
const LIST_MAX = { timestamp_granularities: 8, keywords: VOCABULARY_MAX_TERMS, languages: 10, include: 4 } as const;

export interface OpenAiTranscriptionRequest {
  file: File;
  model: string;
  responseFormat: OpenAiResponseFormat;
  granularities: TimestampGranularity[];
  /** One language (a hint), or OpenAI's `languages[]`: the languages the recording may be in. */
  language: string | string[] | null;
  /** `keywords[]`, then the terms of `prompt`, as the job's `options.vocabulary`. */
  vocabulary: string[];
  /** `temperature` as sent (accepted and ignored: the engines decode deterministically). */
  temperature: number | null;
}

/** A refusal of one field, in the spec's `details[]` terms; the route answers it 422 (413 for `file`'s size). */
export class OpenAiFieldError extends Error {
  constructor(
    readonly path: string,
    readonly issue: string,
    message: string,
    readonly status: 413 | 422 = 422,
  ) {
    super(message);
    this.name = "OpenAiFieldError";
  }
}

const refuse = (path: string, issue: string, message: string) => new OpenAiFieldError(path, issue, message);

/** The field's values under its name and, for a list field, under `name[]` (how the `openai` client sends arrays). */
function valuesOf(form: FormData, name: string, list: boolean): Array<string | File> {
  return list ? [...form.getAll(`${name}[]`), ...form.getAll(name)] : form.getAll(name);
}

function text(form: FormData, name: string): string | null {
  const values = valuesOf(form, name, false);
  if (values.length === 0) return null;
  if (values.length > 1) throw refuse(name, "duplicate", `${name} was sent ${values.length} times; send it once`);
  const v = values[0];
  if (typeof v !== "string") throw refuse(name, "invalidType", `${name} must be a text field, not a file`);
  return v;
}

function list(form: FormData, name: (typeof LIST_FIELDS)[number]): string[] {
  const values = valuesOf(form, name, true);
  if (values.length > LIST_MAX[name]) throw refuse(`${name}[]`, "tooBig", `${name}[] takes at most ${LIST_MAX[name]} values`);
  return values.map((v) => {
    if (typeof v !== "string") throw refuse(`${name}[]`, "invalidType", `${name}[] values must be text fields, not files`);
    return v;
  });
}

function checkFieldNames(form: FormData): void {
  const known = new Set<string>([...SINGLE_FIELDS, ...LIST_FIELDS, ...LIST_FIELDS.map((f) => `${f}[]`)]);
  for (const name of new Set(form.keys()))
    if (!known.has(name))
      throw refuse(name, "notAllowed", `${name} is not a field of this endpoint (docs/api.md "OpenAI-compatible transcription")`);
}

function fileOf(form: FormData): File {
  const values = form.getAll("file");
  if (values.length === 0) throw refuse("file", "required", "file is required: the audio as a multipart file field");
  if (values.length > 1) throw refuse("file", "duplicate", "send one file");
  const file = values[0];
  if (file === undefined || typeof file === "string")
    throw refuse("file", "invalidType", "file must be a file field (multipart/form-data with a filename)");
  if (file.size > OPENAI_FILE_MAX_BYTES)
    throw new OpenAiFieldError("file", "tooBig", `file is ${file.size} bytes; the limit is ${OPENAI_FILE_MAX_BYTES} bytes (25 MiB)`, 413);
  if (file.size === 0) throw refuse("file", "tooSmall", "file is empty");
  const ext = extensionOfName(file.name);
  if (!(OPENAI_AUDIO_EXTENSIONS as readonly string[]).includes(ext))
    throw refuse(
      "file",
      "unsupportedExtension",
      `file's name must end in one of ${OPENAI_AUDIO_EXTENSIONS.join(", ")}; got ${ext ? "." + ext : "no extension"}`,
    );
  return file;
}

/** `Talk.MP3` → `mp3`; "" when the name has none. */
export function extensionOfName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

function languageOf(form: FormData): string | string[] | null {
  const one = text(form, "language");
  const many = list(form, "languages");
  if (one !== null && many.length > 0) throw refuse("languages[]", "conflict", "send language or languages[], not both");
  const check = (code: string, path: string) => {
    const r = LanguageCodeSchema.safeParse(code);
    if (!r.success) throw refuse(path, "invalidFormat", `${path} ${r.error.issues[0]?.message ?? "is not a language code"}`);
    return r.data;
  };
  if (one !== null) return check(one, "language");
  if (many.length === 0) return null;
  const codes = [...new Set(many.map((c) => check(c, "languages[]")))];
  return codes.length === 1 ? (codes[0] as string) : codes;
}

/**
 * A prompt as vocabulary terms: OpenAI's prompt is text the model takes as already said, and a list
 * of names (`"Okonkwo, Kubernetes, TikTok."`) is how its guide spells words out, which is what our
 * vocabulary is. Split at commas, semicolons, line breaks and sentence ends; a piece longer than a
 * vocabulary term may be is dropped (prose carries no term to boost).
 */
export function promptTerms(prompt: string): string[] {
  return prompt
    .split(/[,;\n\r]+|[.!?]+(?=\s|$)/)
    .map((t) => t.trim())
    .filter((t) => t.length > 0 && t.length <= VOCABULARY_TERM_MAX_CHARS);
}

/** `keywords[]` first (named terms), then the prompt's, each once (case-insensitively), at most the vocabulary's limit. */
function vocabularyOf(keywords: string[], prompt: string | null): string[] {
  for (const k of keywords)
    if (k.trim().length === 0 || k.trim().length > VOCABULARY_TERM_MAX_CHARS)
      throw refuse("keywords[]", "invalid", `each of keywords[] must be 1–${VOCABULARY_TERM_MAX_CHARS} characters`);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const term of [...keywords.map((k) => k.trim()), ...(prompt ? promptTerms(prompt) : [])]) {
    const key = term.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(term);
    if (out.length === VOCABULARY_MAX_TERMS) break;
  }
  return out;
}

const ModelSchema = z.string().trim().min(1).max(MODEL_MAX_CHARS);
const TemperatureSchema = z.coerce.number().min(0).max(1);

/** The request, or an `OpenAiFieldError` naming the first field refused (in the order OpenAI lists them). */
export function parseOpenAiTranscription(form: FormData): OpenAiTranscriptionRequest {
  checkFieldNames(form);
  const file = fileOf(form);
  const modelField = text(form, "model");
  if (modelField === null) throw refuse("model", "required", "model is required (any model name; see docs/api.md)");
  const model = ModelSchema.safeParse(modelField);
  if (!model.success) throw refuse("model", "invalid", `model must be 1–${MODEL_MAX_CHARS} characters`);

  const format = text(form, "response_format") ?? "json";
  if (!(OPENAI_RESPONSE_FORMATS as readonly string[]).includes(format))
    throw refuse("response_format", "invalidValue", `response_format must be one of ${OPENAI_RESPONSE_FORMATS.join(", ")}; got ${format}`);

  const granularities = [...new Set(list(form, "timestamp_granularities"))];
  for (const g of granularities)
    if (!(TIMESTAMP_GRANULARITIES as readonly string[]).includes(g))
      throw refuse("timestamp_granularities[]", "invalidValue", `timestamp_granularities[] takes segment and word; got ${g}`);

  const stream = text(form, "stream");
  if (stream !== null && stream !== "false")
    throw refuse("stream", "unsupported", "streaming is not supported: send stream=false or leave it out; the answer comes whole");

  const prompt = text(form, "prompt");
  if (prompt !== null && prompt.length > OPENAI_PROMPT_MAX_CHARS)
    throw refuse("prompt", "tooBig", `prompt must be at most ${OPENAI_PROMPT_MAX_CHARS} characters`);

  const temperatureField = text(form, "temperature");
  let temperature: number | null = null;
  if (temperatureField !== null) {
    const t = TemperatureSchema.safeParse(temperatureField);
    if (!t.success || temperatureField.trim() === "") throw refuse("temperature", "invalid", "temperature must be a number from 0 to 1");
    temperature = t.data;
  }
  // Taken and ignored, as documented: they are OpenAI's tuning of OpenAI's own models.
  text(form, "chunking_strategy");
  list(form, "include");

  return {
    file,
    model: model.data,
    responseFormat: format as OpenAiResponseFormat,
    granularities: granularities as TimestampGranularity[],
    language: languageOf(form),
    vocabulary: vocabularyOf(list(form, "keywords"), prompt),
    temperature,
  };
}
