import { resolvePair, type ResolvedPair, type TranslationBackendName } from "../../../contracts/translation-languages";
import { StepFailure } from "../../../contracts/step-failure";

/** The pair a backend runs for a request; fails, not retryable (the same request never becomes translatable), when it has none. */
export function pairOrFail(
  backend: TranslationBackendName,
  engine: string,
  model: string,
  source: string,
  target: string,
  languages: readonly string[] = [],
): ResolvedPair {
  const pair = resolvePair(backend, source, target, languages);
  if (!pair) throw new StepFailure("processing_failed", `${engine} (${model}): cannot translate ${source} to ${target}`, false);
  return pair;
}
