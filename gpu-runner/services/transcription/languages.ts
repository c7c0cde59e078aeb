import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import type { SpeechEngine } from "../../engines/speech/interface";
import { primaryLanguage } from "../../engines/speech/languages";

/**
 * The language checks around recognition: the job's hint before anything is downloaded, the
 * detected language after. Either failing is `unsupported_language`, not retryable.
 */

type TranscriptionSettings = Settings["transcription"];

function unsupportedLanguage(lang: string, engine: SpeechEngine): StepFailure {
  return new StepFailure(
    "unsupported_language",
    `language ${lang} is not supported by the configured engine ${engine.engine} (supported: ${engine.languages?.join(", ") ?? "any"})`,
    false,
  );
}

/**
 * The hint (or each of a job's allowed languages, `list`) must be a platform-supported source language (the Worker also checks at create; the
 * settings may have changed since) and one the engine knows. Without a hint, an engine that cannot
 * detect languages transcribes in its only language, which must itself be allowed.
 */
export function checkLanguageHint(
  hint: string | undefined,
  t: TranscriptionSettings,
  engine: SpeechEngine,
  list?: readonly string[],
): string | undefined {
  const allowed = t.supportedSourceLanguages.map(primaryLanguage);
  if (list) {
    // A list is a policy the engine must choose within: it has to detect, and know each language.
    if (!engine.detectsLanguage)
      throw new StepFailure(
        "unsupported_language",
        `the configured engine ${engine.engine} recognises one language and cannot choose among ${list.join(", ")}`,
        false,
      );
    for (const l of list) checkLanguageHint(l, t, engine);
    return undefined;
  }
  if (hint !== undefined) {
    const lang = primaryLanguage(hint);
    if (!allowed.includes(lang)) {
      throw new StepFailure(
        "unsupported_language",
        `language ${hint} is not a supported source language (supported: ${allowed.join(", ")})`,
        false,
      );
    }
    if (!engine.supportsLanguage(lang)) throw unsupportedLanguage(hint, engine);
    return lang;
  }
  if (!engine.detectsLanguage && engine.languages === null) {
    // Any language, but it cannot tell which: the platform's only language, or the job must name one.
    if (allowed.length === 1) return allowed[0];
    throw new StepFailure(
      "unsupported_language",
      `the configured engine ${engine.engine} (${engine.model}) cannot detect the language and the platform allows ${allowed.join(", ")}: send options.language`,
      false,
    );
  }
  if (!engine.detectsLanguage && engine.languages && !engine.languages.some((l) => allowed.includes(l))) {
    throw new StepFailure(
      "unsupported_language",
      `the configured engine ${engine.engine} only recognises ${engine.languages.join(", ")}, none of which is a supported source language`,
      false,
    );
  }
  return undefined;
}

export function checkDetectedLanguage(detected: string, t: TranscriptionSettings): string {
  const lang = primaryLanguage(detected);
  const allowed = t.supportedSourceLanguages.map(primaryLanguage);
  if (!allowed.includes(lang)) {
    throw new StepFailure(
      "unsupported_language",
      `detected language ${lang} is not a supported source language (supported: ${allowed.join(", ")})`,
      false,
    );
  }
  return lang;
}

/** Chunks of one source can disagree on a short or silent chunk; the most common answer wins. */
export function majorityLanguage(langs: string[]): string {
  const counts = new Map<string, number>();
  for (const l of langs) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "und";
}
