import type { TranslationBackendName } from "../../../contracts/translation-languages";

/**
 * The seam between the `translation` service and whatever translates text. One call translates a
 * transcript's segment texts in order, one output per input (never merged or split: each cue keeps
 * its id and timing outside the engine). Glossary terms are protected through translation: the
 * engine never translates them and writes each term's preferred spelling (glossary.ts); a term the
 * engine lost on the way is reported through `onGlossaryDropped`, not a failure.
 */
export interface GlossaryEntry {
  /** The term as it may appear in the source text (matched case-insensitively on word boundaries). */
  term: string;
  /** The spelling the output must use. */
  preferred: string;
}

/** A glossary term found in source text `index` that the translation no longer carries. */
export interface GlossaryDrop {
  index: number;
  term: string;
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
  /** Called once per glossary term occurrence the engine dropped (the text is kept as translated). */
  onGlossaryDropped?: (drop: GlossaryDrop) => void;
}

export interface TranslationEngine {
  readonly engine: TranslationBackendName;
  /** What translates a request: `apertium:eng-spa`, `@cf/meta/m2m100-1.2b`, the chat model id. */
  modelFor(source: string, target: string): string;
  translate(req: TranslationRequest): Promise<string[]>;
}

export type { EngineEnv } from "../config";

export interface TranslationEngineFactoryOptions {
  /** Upper bound for one HTTP call or one Apertium run; the handler passes something shorter than the lease. */
  requestTimeoutMs?: number;
  /** The backend's model id (hosted backends each have a default). */
  model?: string;
  /** The operator's languages for language-model backends (`policy.translation.languages`); empty means any pair. */
  languages?: readonly string[];
}
