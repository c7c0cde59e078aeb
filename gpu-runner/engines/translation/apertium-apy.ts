import { z } from "zod";
import { EngineHttpClient, type RetryPolicy } from "../http";
import { ApertiumEngine, type ApertiumBaseConfig } from "./apertium";

/**
 * Apertium through an apertium-apy server (APERTIUM_APY_URL; the local stack starts one,
 * apertium-apy-modes.ts): `POST /translate` with the form `langpair=<from>|<to>&q=…&markUnknown=no&
 * format=txt`, answered `{ responseData: { translatedText }, responseStatus: 200 }`.
 *
 * - `langpair` is the mode split at its first dash: `eng-hbs_HR` → `eng|hbs_HR`, `spa-eng_US` →
 *   `spa|eng_US`, `en-gl` → `en|gl` (apy turns two-letter codes into three-letter ones itself, and
 *   lists that pair as `eng|glg`).
 * - `format=txt` runs the txt deformatter, whose blank-line sentence breaks keep batched segments
 *   apart (apertium-batch.ts); apy's default is HTML, where a blank line is only a space.
 * - `markUnknown=no` only strips the `*` marks: apy runs every mode's generator with `-g`, so
 *   `@` and `#` marks stay (`@Hello #svijet` in eng-hbs, `@bob@example.com` in en-eo) unless the
 *   server's modes are the mark-free copies apertium-apy-modes.ts writes (what `apertium -u` runs).
 * - apy cuts a text over 4,096 bytes (over 1,000 characters once more than two requests share a
 *   pipeline) into up to ten pieces at a `.` or a space, each translated on its own, and silently
 *   drops what is left after ten. Runs are kept to APY_MAX_CHARS, under both limits, so a batch is
 *   never cut inside a segment; a longer segment goes alone, cut by apy at a sentence end if need be.
 * - APY_CONCURRENCY (2) requests in flight: apy runs one pipeline per pair, so a second request
 *   only overlaps the deformatter and reformatter processes apy starts for each request and the
 *   round trip (300 cues: 1.58 s one at a time, 1.15 s two at a time, on a loaded 2-core machine).
 */
export interface ApertiumApyConfig extends ApertiumBaseConfig {
  baseUrl: string;
  retry: RetryPolicy;
  /** Characters per request (default APY_MAX_CHARS). */
  maxChars?: number;
  /** Requests in flight at once (default APY_CONCURRENCY). */
  concurrency?: number;
}

export const APY_MAX_CHARS = 1_000;
export const APY_CONCURRENCY = 2;

const AnswerSchema = z.object({
  responseData: z.object({ translatedText: z.string() }).loose(),
});

/** apy's `langpair` for a mode. */
export function apyLangpair(mode: string): string {
  const dash = mode.indexOf("-");
  return `${mode.slice(0, dash)}|${mode.slice(dash + 1)}`;
}

export class ApertiumApyEngine extends ApertiumEngine {
  readonly transport = "apy" as const;
  protected readonly maxChars: number;
  protected override readonly concurrency: number;
  private readonly clients = new Map<string, EngineHttpClient>();

  constructor(private readonly config: ApertiumApyConfig) {
    super(config);
    this.maxChars = config.maxChars ?? APY_MAX_CHARS;
    this.concurrency = config.concurrency ?? APY_CONCURRENCY;
  }

  protected async run(mode: string, text: string, signal: AbortSignal): Promise<string> {
    const http = this.client(mode);
    const form = new URLSearchParams({ langpair: apyLangpair(mode), q: text, markUnknown: "no", format: "txt" }).toString();
    const body = await http.send(
      "/translate",
      {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
        body: () => form,
        signal,
      },
      (res) => res.text(),
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw http.failure(`answered something that is not JSON: ${body.slice(0, 120)}`);
    }
    const answer = AnswerSchema.safeParse(parsed);
    if (!answer.success) throw http.failure(`answered without a translation: ${answer.error.issues[0]?.message ?? ""}`);
    return answer.data.responseData.translatedText;
  }

  private client(mode: string): EngineHttpClient {
    let c = this.clients.get(mode);
    if (!c) {
      c = new EngineHttpClient({ engine: "apertium", model: `apertium:${mode}`, baseUrl: this.config.baseUrl, policy: this.config.retry });
      this.clients.set(mode, c);
    }
    return c;
  }
}
