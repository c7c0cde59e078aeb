import { EngineHttpClient, type RetryPolicy } from "../http";
import type { Cover, CoverRequest, ImageEngine } from "./interface";

/** The common shape of hosted text-to-image models: model and HTTP policy from their configuration. */
export abstract class NetworkImageEngine<C extends { model: string; retry: RetryPolicy }> implements ImageEngine {
  abstract readonly engine: string;
  readonly kind = "generative";

  constructor(protected readonly config: C) {}

  get model(): string {
    return this.config.model;
  }

  /** The shared HTTP client (engines/http.ts), naming this engine and model in its errors. */
  protected httpClient(baseUrl: string, headers: Record<string, string> = {}): EngineHttpClient {
    return new EngineHttpClient({ engine: this.engine, model: this.model, baseUrl, headers, policy: this.config.retry });
  }

  abstract generate(req: CoverRequest): Promise<Cover>;
}
