import type { TranslationBackendName } from "../../../contracts/translation-languages";

/**
 * The seam between the `translation` service and whatever translates text. One call translates a
 * transcript's segment texts in order, one output per input (never merged or split: each cue keeps
 * its id and timing outside the engine). Glossary terms are protected through translation: the
 * engine never translates them and writes each term's preferred spelling.
 */
export interface GlossaryEntry {
  /** The term as it may appear in the source text (matched case-insensitively on word boundaries). */
  term: string;
  /** The spelling the output must use. */
  preferred: string;
}

export interface TranslationRequest {
  /** Language codes as validated by contracts/translation-languages.ts (`en`, `es`, `pt-BR`). */
  source: string;
  target: string;
  texts: readonly string[];
  glossary?: readonly GlossaryEntry[];
  signal: AbortSignal;
  /** Called as texts are done (count so far), so the stage can report progress on long transcripts. */
  onProgress?: (done: number) => void;
}

export interface TranslationEngine {
  readonly backend: TranslationBackendName;
  /** What translates a request: `apertium:eng-spa`, `@cf/meta/m2m100-1.2b`, the chat model id. */
  modelFor(source: string, target: string): string;
  translate(req: TranslationRequest): Promise<string[]>;
}
