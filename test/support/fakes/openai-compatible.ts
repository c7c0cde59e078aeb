import { chatTurns, DEFAULT_CHAT_REPLY, limitTokens, tokenCount, type ChatReply, type ChatTurn } from "./chat";
import { fakeEmbedding } from "./embeddings";
import { FakeHttpServer, hasBearer, type RecordedRequest, type Reply } from "./fake-http";
import { fakeImage } from "./images";
import { fullText, HELLO_WORLD, whisperLanguageName, type SpokenTranscript } from "./speech";
import { fakeSpeechWav } from "./synthesis";

/**
 * A fake OpenAI-compatible server (OpenAI's API as speaches, vLLM or whisper.cpp's server serve it),
 * written from OpenAI's API reference:
 *
 *   POST /v1/audio/transcriptions   multipart: file, model, response_format (json | text |
 *                                   verbose_json | diarized_json), timestamp_granularities[] (word, segment), language,
 *                                   prompt (text the model takes as already said)
 *   POST /v1/images/generations     JSON: model, prompt, n, size ("WxH"), response_format (url |
 *                                   b64_json; gpt-image models take none and answer b64_json)
 *   POST /v1/chat/completions       JSON: model, messages [{ role, content }], temperature (0–2),
 *                                   max_tokens | max_completion_tokens, response_format ({ type:
 *                                   text | json_object | json_schema }), stream (not served)
 *   POST /v1/embeddings             JSON: model, input (a string or 1–2048 strings, none empty; token
 *                                   arrays not served), encoding_format (float | base64),
 *                                   dimensions (text-embedding-3 models only)
 *
 * verbose_json carries `task, language (Whisper's English name), duration, text, segments` and
 * `words` only when word granularity was asked for. Errors are `{ error: { message, type, param,
 * code } }`. Images are drawn at the size asked for (dall-e-3 accepts only its three sizes, as
 * OpenAI does; other model names stand for self-hosted servers that take any size) and answered as
 * `{ created, data: [{ b64_json, revised_prompt? }] }`. A chat completion says what `chatReply`
 * makes of the messages (chat.ts), answered as `{ id, object: "chat.completion", created, model,
 * choices: [{ index, message: { role, content, refusal }, logprobs, finish_reason }], usage }`, cut
 * to max_tokens with finish_reason `length`; `json_object` needs the word "json" in the messages, as
 * OpenAI requires. Embeddings are answered as `{ object: "list", data: [{ object: "embedding", index,
 * embedding }], model, usage: { prompt_tokens, total_tokens } }` with the deterministic vectors of
 * embeddings.ts, unit length as OpenAI's are: text-embedding-3-small and ada-002 have 1536
 * dimensions, text-embedding-3-large 3072, any other model name (a self-hosted TEI, vLLM or Ollama)
 * `embeddingDimensions`.
 *
 *   POST /v1/audio/voices           multipart: name, audio_sample (a file, at most 30 s as OpenAI
 *                                   takes), consent (optional) → { id, object: "audio.voice", name,
 *                                   created_at, type: "audio_sample" }
 *   POST /v1/audio/speech           JSON: model, input (≤ 4096 characters), voice (a preset name or
 *                                   { id } of a created voice), response_format (mp3 | opus | aac |
 *                                   flac | wav | pcm; this fake renders wav only), speed (0.25–4)
 *
 * Speech is synthesis.ts's buzz, 0.3 s a word over speed, answered as `audio/wav` bytes; an unknown
 * voice id is a 400, as OpenAI answers. Other endpoints are added the same way:
 * a `this.route(...)` in the constructor and a handler rendering the format.
 */
export class FakeOpenAICompatible extends FakeHttpServer {
  /** What the model hears in any audio (back to HELLO_WORLD on reset). */
  transcript: SpokenTranscript = HELLO_WORLD;
  /** Replaces the images endpoint's answer body, for answers of the wrong shape (cleared on reset). */
  imagesAnswer: unknown = undefined;
  /** What the chat model says (back to DEFAULT_CHAT_REPLY on reset). */
  chatReply: ChatReply = DEFAULT_CHAT_REPLY;
  /** Replaces the chat completions endpoint's answer body, for answers of the wrong shape (cleared on reset). */
  chatAnswer: unknown = undefined;
  /** Dimensions of embedding models OpenAI does not have (back to 384 on reset). */
  embeddingDimensions = 384;
  /** Lists `data` last input first (each item keeps its `index`), as a server may (cleared on reset). */
  embeddingsReversed = false;
  /** Replaces the embeddings endpoint's answer body, for answers of the wrong shape (cleared on reset). */
  embeddingsAnswer: unknown = undefined;
  /** Voices created through /v1/audio/voices, by id (cleared on reset). */
  readonly voices = new Map<string, { name: string; sample: Buffer; consent: string | null }>();
  private completions = 0;

  constructor(readonly apiKey?: string) {
    super();
    this.route("POST", "/v1/audio/transcriptions", (req) => this.transcriptions(req));
    this.route("POST", "/v1/images/generations", (req) => this.images(req));
    this.route("POST", "/v1/chat/completions", (req) => this.chat(req));
    this.route("POST", "/v1/embeddings", (req) => this.embeddings(req));
    this.route("POST", "/v1/audio/voices", (req) => this.createVoice(req));
    this.route("POST", "/v1/audio/speech", (req) => this.speech(req));
  }

  static start(opts: { apiKey?: string } = {}): Promise<FakeOpenAICompatible> {
    return new FakeOpenAICompatible(opts.apiKey).listen();
  }

  override reset(): void {
    super.reset();
    this.transcript = HELLO_WORLD;
    this.imagesAnswer = undefined;
    this.chatReply = DEFAULT_CHAT_REPLY;
    this.chatAnswer = undefined;
    this.embeddingDimensions = 384;
    this.embeddingsReversed = false;
    this.embeddingsAnswer = undefined;
    this.voices.clear();
  }

  protected errorBody(status: number, message: string): unknown {
    const type =
      status === 401
        ? "invalid_request_error"
        : status === 429
          ? "rate_limit_error"
          : status >= 500
            ? "server_error"
            : "invalid_request_error";
    return { error: { message, type, param: null, code: status === 401 ? "invalid_api_key" : null } };
  }

  private async transcriptions(req: RecordedRequest): Promise<Reply> {
    if (!hasBearer(req, this.apiKey)) return this.error(401, "Incorrect API key provided.");
    const form = await req.formData();
    const file = form.get("file");
    if (!(file instanceof File) || file.size === 0) return this.error(400, "file: a non-empty audio file is required");
    if (!form.get("model")) return this.error(400, "model: a model is required");
    const format = String(form.get("response_format") ?? "json");
    const t = this.transcript;
    if (format === "text") return { status: 200, text: fullText(t) };
    if (format === "json") return { status: 200, json: { text: fullText(t) } };
    if (format === "diarized_json") {
      // gpt-4o-transcribe-diarize: speaker-labelled segments (A, B, … in turn here), no words, no language.
      if (form.get("prompt") !== null) return this.error(400, "Prompt is not supported for diarization models.");
      return {
        status: 200,
        json: {
          task: "transcribe",
          duration: t.duration,
          text: fullText(t),
          segments: t.segments.map((s, i) => ({
            type: "transcript.text.segment",
            id: `seg_${i}`,
            start: s.start,
            end: s.end,
            text: s.text,
            speaker: String.fromCharCode(65 + (i % 2)),
          })),
        },
      };
    }
    if (format !== "verbose_json") return this.error(400, `response_format: ${format} is not supported here`);
    const granularities = form.getAll("timestamp_granularities[]").map(String);
    const withWords = granularities.includes("word");
    const withSegments = granularities.length === 0 || granularities.includes("segment");
    return {
      status: 200,
      json: {
        task: "transcribe",
        language: whisperLanguageName(t.language),
        duration: t.duration,
        text: fullText(t),
        ...(withWords
          ? {
              words: t.segments.flatMap((s) =>
                s.words.map((w) => ({
                  word: ` ${w.word}`,
                  start: w.start,
                  end: w.end,
                  ...(w.probability !== undefined ? { probability: w.probability } : {}),
                })),
              ),
            }
          : {}),
        ...(withSegments
          ? {
              segments: t.segments.map((s, id) => ({
                id,
                seek: 0,
                start: s.start,
                end: s.end,
                text: ` ${s.text}`,
                tokens: [50364, 2425, 1002],
                temperature: 0,
                avg_logprob: s.avgLogprob ?? -0.3,
                compression_ratio: 1,
                no_speech_prob: 0.01,
              })),
            }
          : {}),
      },
    };
  }

  private async createVoice(req: RecordedRequest): Promise<Reply> {
    if (!hasBearer(req, this.apiKey)) return this.error(401, "Incorrect API key provided.");
    const form = await req.formData();
    const name = form.get("name");
    const sample = form.get("audio_sample");
    if (typeof name !== "string" || name === "") return this.error(400, "name: a name is required");
    if (!(sample instanceof File) || sample.size === 0) return this.error(400, "audio_sample: a non-empty audio file is required");
    const bytes = Buffer.from(await sample.arrayBuffer());
    // 30 s of 16-bit mono at 48 kHz: a generous stand-in for OpenAI's 30-second limit.
    if (bytes.length > 30 * 48_000 * 2 + 44) return this.error(400, "audio_sample: the sample must be at most 30 seconds long");
    const consent = form.get("consent");
    const id = `voice_fake${this.voices.size + 1}`;
    this.voices.set(id, { name, sample: bytes, consent: typeof consent === "string" ? consent : null });
    return { status: 200, json: { id, object: "audio.voice", name, created_at: 1_700_000_000, type: "audio_sample" } };
  }

  private speech(req: RecordedRequest): Reply {
    if (!hasBearer(req, this.apiKey)) return this.error(401, "Incorrect API key provided.");
    const body = req.json() as Record<string, unknown>;
    const { model, input, voice, response_format: format = "mp3", speed = 1 } = body;
    if (typeof model !== "string" || model === "") return this.error(400, "you must provide a model parameter");
    if (typeof input !== "string" || input === "" || input.length > 4096)
      return this.error(400, "input: 1 to 4096 characters are required");
    const id = typeof voice === "object" && voice !== null ? (voice as { id?: unknown }).id : undefined;
    if (typeof voice !== "string" && typeof id !== "string") return this.error(400, "voice: a voice name or { id } is required");
    if (typeof id === "string" && !this.voices.has(id)) return this.error(400, `voice: ${id} is not a voice of this organization`);
    if (typeof speed !== "number" || speed < 0.25 || speed > 4) return this.error(400, `speed: ${String(speed)} is not between 0.25 and 4`);
    if (format !== "wav") return this.error(400, `response_format: this fake renders wav only, not ${String(format)}`);
    return { status: 200, body: fakeSpeechWav(input, speed), headers: { "content-type": "audio/wav" } };
  }

  private async images(req: RecordedRequest): Promise<Reply> {
    if (!hasBearer(req, this.apiKey)) return this.error(401, "Incorrect API key provided.");
    const body = req.json() as Record<string, unknown>;
    const { model, prompt, n = 1, size = "1024x1024", response_format } = body;
    if (typeof prompt !== "string" || prompt === "") return this.error(400, "prompt: a prompt is required");
    if (typeof model !== "string" || model === "") return this.error(400, "model: a model is required");
    if (n !== 1) return this.error(400, "n: this fake makes one image per request");
    const m = typeof size === "string" ? /^(\d+)x(\d+)$/.exec(size) : null;
    if (!m) return this.error(400, `size: ${String(size)} is not WxH`);
    if (model === "dall-e-3" && !["1024x1024", "1792x1024", "1024x1792"].includes(size as string))
      return this.error(400, `${String(size)} is not one of the supported sizes: 1024x1024, 1792x1024, 1024x1792`);
    if (model.startsWith("gpt-image-") && response_format !== undefined) return this.error(400, "Unknown parameter: 'response_format'.");
    if (!model.startsWith("gpt-image-") && response_format !== "b64_json")
      return this.error(400, "response_format: this fake answers b64_json only");
    if (this.imagesAnswer !== undefined) return { status: 200, json: this.imagesAnswer };
    const png = await fakeImage(Number(m[1]), Number(m[2]), "png", prompt);
    return {
      status: 200,
      json: {
        created: 1_700_000_000,
        data: [{ b64_json: png.toString("base64"), ...(model === "dall-e-3" ? { revised_prompt: `A cover: ${prompt}` } : {}) }],
      },
    };
  }

  private chat(req: RecordedRequest): Reply {
    if (!hasBearer(req, this.apiKey)) return this.error(401, "Incorrect API key provided.");
    const body = req.json() as Record<string, unknown>;
    const { model, temperature, response_format: format, stream } = body;
    if (typeof model !== "string" || model === "") return this.error(400, "you must provide a model parameter");
    let messages: ChatTurn[];
    try {
      messages = chatTurns(body.messages, ["system", "developer", "user", "assistant", "tool"]);
    } catch (err) {
      return this.error(400, (err as Error).message);
    }
    if (temperature !== undefined && (typeof temperature !== "number" || temperature < 0 || temperature > 2))
      return this.error(400, `Invalid 'temperature': ${String(temperature)}. Expected a number from 0 to 2.`);
    const maxTokens = body.max_completion_tokens ?? body.max_tokens;
    if (maxTokens !== undefined && (!Number.isInteger(maxTokens) || (maxTokens as number) < 1))
      return this.error(400, `Invalid 'max_tokens': ${String(maxTokens)}. Expected a positive integer.`);
    if (stream === true) return this.error(400, "stream: this fake answers whole completions only");
    const type = format === undefined ? "text" : (format as { type?: unknown } | null)?.type;
    if (type !== "text" && type !== "json_object" && type !== "json_schema")
      return this.error(400, `Invalid value: '${String(type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`);
    if (type === "json_object" && !messages.some((m) => /json/i.test(m.content)))
      return this.error(400, "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.");
    if (this.chatAnswer !== undefined) return { status: 200, json: this.chatAnswer };
    const said = this.chatReply(messages, { json: type !== "text" });
    const { text, cut } = maxTokens === undefined ? { text: said, cut: false } : limitTokens(said, maxTokens as number);
    const promptTokens = messages.reduce((n, m) => n + tokenCount(m.content), 0);
    return {
      status: 200,
      json: {
        id: `chatcmpl-fake${++this.completions}`,
        object: "chat.completion",
        created: 1_700_000_000,
        model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: text, refusal: null },
            logprobs: null,
            finish_reason: cut ? "length" : "stop",
          },
        ],
        usage: { prompt_tokens: promptTokens, completion_tokens: tokenCount(text), total_tokens: promptTokens + tokenCount(text) },
      },
    };
  }

  private embeddings(req: RecordedRequest): Reply {
    if (!hasBearer(req, this.apiKey)) return this.error(401, "Incorrect API key provided.");
    const body = req.json() as Record<string, unknown>;
    const { model, input, encoding_format: format = "float", dimensions } = body;
    if (typeof model !== "string" || model === "") return this.error(400, "you must provide a model parameter");
    const texts = typeof input === "string" ? [input] : input;
    if (!Array.isArray(texts) || texts.length === 0 || texts.length > 2048 || !texts.every((t) => typeof t === "string"))
      return this.error(400, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.");
    if (texts.some((t) => t === "")) return this.error(400, "'$.input' is invalid: an input cannot be an empty string.");
    if (format !== "float" && format !== "base64")
      return this.error(400, `Invalid value: '${String(format)}'. Supported values are: 'float' and 'base64'.`);
    const native = OPENAI_EMBEDDING_DIMENSIONS[model] ?? this.embeddingDimensions;
    if (dimensions !== undefined && (!model.startsWith("text-embedding-3") || !Number.isInteger(dimensions) || (dimensions as number) < 1))
      return this.error(400, `This model does not support specifying dimensions.`);
    if (this.embeddingsAnswer !== undefined) return { status: 200, json: this.embeddingsAnswer };
    const size = (dimensions as number | undefined) ?? native;
    const data = texts.map((t, index) => {
      const v = fakeEmbedding(model, t, size);
      return {
        object: "embedding",
        index,
        embedding: format === "base64" ? Buffer.from(Float32Array.from(v).buffer).toString("base64") : v,
      };
    });
    const tokens = texts.reduce((n, t) => n + tokenCount(t), 0);
    return {
      status: 200,
      json: {
        object: "list",
        data: this.embeddingsReversed ? data.reverse() : data,
        model,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      },
    };
  }
}

const OPENAI_EMBEDDING_DIMENSIONS: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
};
