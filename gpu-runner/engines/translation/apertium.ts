import { APERTIUM_MODES, resolvePair } from "../../../contracts/translation-languages";
import { StepFailure } from "../../../contracts/step-failure";
import type { Logger } from "../../log";
import { translateBatched } from "./apertium-batch";
import { protect, restore } from "./glossary";
import type { TranslationEngine, TranslationRequest } from "./interface";

/**
 * Apertium (rule-based, offline, the Debian packages scripts/setup.sh installs) behind
 * `TranslationEngine`, whatever the transport: the apertium-apy server (apertium-apy.ts) or the
 * `apertium` command (apertium-cli.ts). The pair's mode comes from contracts/translation-languages.ts
 * (`resolvePair`): the record's `model` is `apertium:<mode>`. Glossary terms go through as
 * placeholders (glossary.ts), texts in batches (apertium-batch.ts), the first letter of each output
 * in its source's case (withInitialCaseOf). Output is Apertium's `-u` form: no `*`, `@` or `#` marks
 * for unknown words.
 */
export interface ApertiumBaseConfig {
  /** Where a batch whose output did not split is recorded (`translation_batch_split`). */
  log?: Logger;
}

export abstract class ApertiumEngine implements TranslationEngine {
  readonly engine = "apertium" as const;
  /** `apy` or `cli`: which transport, for logs and benchmarks. */
  abstract readonly transport: "apy" | "cli";
  /** Characters per run (texts joined); a longer text goes alone. */
  protected abstract readonly maxChars: number;
  /** Runs in flight at once. */
  protected readonly concurrency: number = 1;

  constructor(protected readonly base: ApertiumBaseConfig = {}) {}

  /** The Apertium mode for a pair; fails, not retryable, for a pair no installed mode translates. */
  mode(source: string, target: string): string {
    const pair = resolvePair("apertium", source, target);
    if (!pair)
      throw new StepFailure(
        "processing_failed",
        `apertium cannot translate ${source} to ${target} (installed: ${[...new Set(APERTIUM_MODES.map((m) => `${m.source}→${m.target}`))].join(", ")})`,
        false,
      );
    return pair.model;
  }

  modelFor(source: string, target: string): string {
    return `apertium:${this.mode(source, target)}`;
  }

  async translate(req: TranslationRequest): Promise<string[]> {
    const mode = this.mode(req.source, req.target);
    req.signal.throwIfAborted();
    const prot = protect(req.texts, req.glossary, "placeholder");
    const translated = await translateBatched(prot.texts, {
      maxChars: this.maxChars,
      concurrency: this.concurrency,
      run: (text) => this.run(mode, text, req.signal),
      signal: req.signal,
      ...(req.onProgress ? { onProgress: req.onProgress } : {}),
      onSplitMismatch: (batch, parts) =>
        this.base.log?.("warn", "translation_batch_split", {
          engine: "apertium",
          model: `apertium:${mode}`,
          texts: batch.indexes.length,
          parts,
        }),
    });
    const cased = translated.map((t, i) => withInitialCaseOf(prot.texts[i]!, t));
    const restored = restore(cased, prot, req.glossary, "placeholder");
    for (const drop of restored.dropped) req.onGlossaryDropped?.(drop);
    return restored.texts;
  }

  /** One run over `text` (segments joined by a blank line) in Apertium's txt format, answered as its output. */
  protected abstract run(mode: string, text: string, signal: AbortSignal): Promise<string>;
}

/**
 * The output's first letter in the case of the source's first letter. Apertium capitalises the
 * start of every sentence, and a cue that continues a sentence (`on a small balcony`) is one to it
 * (`Sur malgranda balkono`); en-eo also lower-cases a capitalised start of a text run alone. A cue
 * starting with a glossary placeholder is left as it is (the preferred spelling decides), and an
 * output starting with English `I` or an all-capitals word is never lower-cased.
 */
export function withInitialCaseOf(source: string, output: string): string {
  const s = /\p{L}/u.exec(source);
  const o = /\p{L}/u.exec(output);
  if (!s || !o || /^xg\d+x/i.test(source.slice(s.index))) return output;
  const upper = s[0] !== s[0].toLowerCase();
  const lower = s[0] !== s[0].toUpperCase();
  const word = /^[\p{L}\p{N}]+/u.exec(output.slice(o.index))?.[0] ?? "";
  const keepUpper = word === "I" || (word.length > 1 && word === word.toUpperCase());
  const letter = upper ? o[0].toUpperCase() : lower && !keepUpper ? o[0].toLowerCase() : o[0];
  return output.slice(0, o.index) + letter + output.slice(o.index + o[0].length);
}
