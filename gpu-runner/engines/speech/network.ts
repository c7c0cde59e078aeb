import type { CompressedFormat } from "../../media/ffmpeg";
import { EngineHttpClient, type RetryPolicy } from "../http";
import type { EngineTranscript, SpeechEngine, TranscribeOptions } from "./interface";

/**
 * The common shape of engines reached over the network (hosted Whisper-class models): they detect
 * the language, take any language, do their own noise handling only as far as the model does, and
 * read model, audio format, concurrency and HTTP policy from their configuration.
 */
export abstract class NetworkSpeechEngine<
  C extends { model: string; maxConcurrency: number; inputFormat: "wav" | CompressedFormat; retry: RetryPolicy },
> implements SpeechEngine {
  abstract readonly engine: string;
  readonly detectsLanguage: boolean = true;
  readonly labelsSpeakers: boolean = false;
  readonly reducesNoise = false;
  readonly languages = null;

  constructor(protected readonly config: C) {}

  get model(): string {
    return this.config.model;
  }
  get inputFormat(): C["inputFormat"] {
    return this.config.inputFormat;
  }
  get maxConcurrency(): number {
    return this.config.maxConcurrency;
  }

  supportsLanguage(): boolean {
    return true;
  }

  /** The shared HTTP client (engines/http.ts), naming this engine and model in its errors. */
  protected httpClient(baseUrl: string, headers: Record<string, string> = {}): EngineHttpClient {
    return new EngineHttpClient({ engine: this.engine, model: this.model, baseUrl, headers, policy: this.config.retry });
  }

  abstract transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript>;
}
