import { VOCABULARY_MAX_TERMS, VOCABULARY_TERM_MAX_CHARS } from "../../../contracts/request-fields";

/**
 * What a speech engine did with a job's vocabulary (TranscribeOptions.vocabulary), for the
 * `transcribe` stage's details: how the terms reached the recogniser, how many did, and why the
 * others did not. Terms are customer text: they are counted here, never echoed.
 */
export type VocabularyMethod =
  /** OpenAI-compatible `/v1/audio/transcriptions`: the `prompt` field. */
  | "prompt"
  /** Whisper's `initial_prompt` input (Replicate, Workers AI). */
  | "initial_prompt"
  /** PocketSphinx: dictionary entries with generated pronunciations, boosted as language-model unigrams. */
  | "dictionary_unigram_boost"
  /** The engine or its configured model has no way to take terms. */
  | "none";

export type VocabularyDropReason =
  /** Beyond VOCABULARY_MAX_TERMS, or longer than VOCABULARY_TERM_MAX_CHARS. */
  | "over_limit"
  /** A character other than a letter, digit, apostrophe, hyphen or space. */
  | "unsafe_characters"
  /** It did not fit in Whisper's prompt window. */
  | "prompt_limit"
  /** No pronunciation could be made for it. */
  | "no_pronunciation"
  /** The configured model takes no prompt. */
  | "model_takes_no_prompt"
  /** The configured PocketSphinx language model is not in the trie format terms can be added to. */
  | "language_model_unsupported";

export interface VocabularyUse {
  method: VocabularyMethod;
  termsUsed: number;
  termsDropped: number;
  /** Dropped terms counted by reason (only reasons that occurred). */
  dropped: Partial<Record<VocabularyDropReason, number>>;
}

export class VocabularyTally {
  private readonly counts: Partial<Record<VocabularyDropReason, number>> = {};
  private dropCount = 0;

  drop(reason: VocabularyDropReason, n = 1): void {
    if (n <= 0) return;
    this.counts[reason] = (this.counts[reason] ?? 0) + n;
    this.dropCount += n;
  }

  use(method: VocabularyMethod, termsUsed: number): VocabularyUse {
    return { method, termsUsed, termsDropped: this.dropCount, dropped: { ...this.counts } };
  }
}

/**
 * The terms an engine may consider: trimmed, with inner whitespace collapsed, deduplicated
 * case-insensitively, the first VOCABULARY_MAX_TERMS of at most VOCABULARY_TERM_MAX_CHARS (the
 * contract bounds them already; the runner does not rely on it).
 */
export function boundedTerms(terms: readonly string[] | undefined, tally: VocabularyTally): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of terms ?? []) {
    const term = raw.normalize("NFC").trim().replace(/\s+/g, " ");
    if (!term) continue;
    const key = term.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    if (term.length > VOCABULARY_TERM_MAX_CHARS || out.length >= VOCABULARY_MAX_TERMS) tally.drop("over_limit");
    else out.push(term);
  }
  return out;
}

/**
 * Letters, combining marks, digits, apostrophes (' and ’), hyphens and single spaces, starting and
 * ending with a letter or digit: nothing a command line, a dictionary line or a file name could
 * read as anything but a word.
 */
const SAFE_TERM = /^[\p{L}\p{N}](?:[\p{L}\p{M}\p{N}'’ -]*[\p{L}\p{M}\p{N}])?$/u;

/** Terms safe to write into files and hand to local tools; the others are dropped as unsafe_characters. */
export function safeTerms(terms: readonly string[], tally: VocabularyTally): string[] {
  const out: string[] = [];
  for (const t of terms) {
    if (SAFE_TERM.test(t) && !/ {2}|--/.test(t)) out.push(t.replace(/’/g, "'"));
    else tally.drop("unsafe_characters");
  }
  return out;
}

/**
 * Whisper conditions on at most the last 223 prompt tokens (half its 448-token text context, less
 * the start-of-previous token): text beyond that is silently ignored, so the prompt is capped here
 * and the terms that do not fit are dropped, counted. Whisper's byte-level BPE is not bundled; the
 * estimate counts 3 ASCII bytes a token (English text averages about 4, rare names fewer) and 2
 * tokens for every other character, so the real count stays under the window.
 */
export const WHISPER_PROMPT_TOKENS = 223;

export function estimateWhisperTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of text) {
    if (ch.charCodeAt(0) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / 3) + other * 2;
}

export interface WhisperPrompt {
  /** Null when no term is left. */
  prompt: string | null;
  use: VocabularyUse;
}

/**
 * The terms as a Whisper prompt: a comma-separated list in the caller's order (the job's terms
 * come before the glossary's), which Whisper takes as text already said and so as spellings to
 * follow; terms past the token budget are dropped. Whisper reads the prompt as text, so any
 * character may be in it: the terms are not filtered for safety here.
 */
export function whisperPrompt(
  terms: readonly string[] | undefined,
  method: "prompt" | "initial_prompt",
  budget = WHISPER_PROMPT_TOKENS,
): WhisperPrompt {
  const tally = new VocabularyTally();
  const kept: string[] = [];
  for (const term of boundedTerms(terms, tally)) {
    const candidate = [...kept, term].join(", ") + ".";
    if (estimateWhisperTokens(candidate) <= budget) kept.push(term);
    else tally.drop("prompt_limit");
  }
  return { prompt: kept.length ? kept.join(", ") + "." : null, use: tally.use(method, kept.length) };
}

/** For an engine or model that takes no terms: every term dropped for `reason`. */
export function vocabularyUnused(terms: readonly string[] | undefined, reason: VocabularyDropReason): VocabularyUse {
  const tally = new VocabularyTally();
  const bounded = boundedTerms(terms, tally);
  tally.drop(reason, bounded.length);
  return tally.use("none", 0);
}
