/**
 * Which language pairs each translation backend can do, shared by the Worker (the policy endpoint,
 * validation at create) and the runner (choosing the engine's mode). Codes are the request's
 * language codes (ISO 639-1 or 639-3, optionally with a region: `es`, `pt-BR`, `es-419`).
 *
 * - `apertium`: the modes of the Debian packages scripts/setup.sh installs, nothing else. A region
 *   form uses a regional mode where Apertium has one (`en-US` from Spanish or Catalan, `hr`/`sr`/`bs`
 *   for Serbo-Croatian) and the base language's mode otherwise; the record's `model` names the mode.
 * - `workers-ai`: `@cf/meta/m2m100-1.2b`, any of its 100 languages into any other.
 * - `replicate`, `openai-compatible`: a language model; the pairs are the operator's list
 *   (`policy.translation.languages`), any into any other.
 */
export const TRANSLATION_BACKENDS = ["apertium", "workers-ai", "replicate", "openai-compatible"] as const;
export type TranslationBackendName = (typeof TRANSLATION_BACKENDS)[number];

export interface ApertiumMode {
  source: string;
  target: string;
  /** The Apertium mode (`apertium -u <mode>`, apy's `langpair` is `<from>|<to>` of it). */
  mode: string;
}

/** Installed by scripts/setup.sh (apertium-eng-spa, -eng-cat, -en-gl, -eo-en, -hbs-eng, -eu-en, -isl-eng, -mkd-eng). */
export const APERTIUM_MODES: readonly ApertiumMode[] = [
  { source: "en", target: "es", mode: "eng-spa" },
  { source: "es", target: "en", mode: "spa-eng" },
  { source: "es", target: "en-US", mode: "spa-eng_US" },
  { source: "en", target: "ca", mode: "eng-cat" },
  { source: "ca", target: "en", mode: "cat-eng" },
  { source: "ca", target: "en-US", mode: "cat-eng_US" },
  { source: "en", target: "gl", mode: "en-gl" },
  { source: "gl", target: "en", mode: "gl-en" },
  { source: "en", target: "eo", mode: "en-eo" },
  { source: "eo", target: "en", mode: "eo-en" },
  { source: "en", target: "hbs", mode: "eng-hbs" },
  { source: "en", target: "hr", mode: "eng-hbs_HR" },
  { source: "en", target: "sr", mode: "eng-hbs_SR" },
  { source: "en", target: "bs", mode: "eng-hbs_BS" },
  { source: "hbs", target: "en", mode: "hbs-eng" },
  { source: "hr", target: "en", mode: "hbs-eng" },
  { source: "sr", target: "en", mode: "hbs-eng" },
  { source: "bs", target: "en", mode: "hbs-eng" },
  { source: "eu", target: "en", mode: "eu-en" },
  { source: "is", target: "en", mode: "isl-eng" },
  { source: "mk", target: "en", mode: "mkd-eng" },
];

/** The languages of `@cf/meta/m2m100-1.2b` (facebook/m2m100_1.2B's model card). */
export const M2M100_LANGUAGES: readonly string[] = (
  "af am ar ast az ba be bg bn br bs ca ceb cs cy da de el en es et fa ff fi fr fy ga gd gl gu ha he hi hr ht hu hy id ig ilo is it " +
  "ja jv ka kk km kn ko lb lg ln lo lt lv mg mk ml mn mr ms my ne nl no ns oc or pa pl ps pt ro ru sd si sk sl so sq sr ss su sv " +
  "sw ta th tl tn tr uk ur uz vi wo xh yi yo zh zu"
).split(" ");

/** `pt-br` → `pt-BR`, `ES` → `es`, `es-419` stays: the key of `translation.<languageKey>`. */
export function languageKey(code: string): string {
  const [lang = "", region] = code.split("-");
  return region === undefined
    ? lang.toLowerCase()
    : `${lang.toLowerCase()}-${region.length === 4 ? region[0]!.toUpperCase() + region.slice(1).toLowerCase() : region.toUpperCase()}`;
}

/** `pt-BR` → `pt`. */
export function baseLanguage(code: string): string {
  return languageKey(code).split("-")[0]!;
}

export interface LanguagePair {
  source: string;
  target: string;
}

export interface ResolvedPair extends LanguagePair {
  /** The backend's own name for the pair: an Apertium mode, or `source→target` language codes. */
  model: string;
}

/**
 * The pair a backend would run for a request, or undefined when it cannot translate it. `languages`
 * is the operator's list for language-model backends.
 */
export function resolvePair(
  backend: TranslationBackendName,
  source: string,
  target: string,
  languages: readonly string[] = [],
): ResolvedPair | undefined {
  const s = languageKey(source);
  const t = languageKey(target);
  if (baseLanguage(s) === baseLanguage(t) && s === t) return undefined;
  switch (backend) {
    case "apertium": {
      const modes = (src: string) => APERTIUM_MODES.filter((m) => m.source === src);
      const candidates = modes(s).length > 0 ? modes(s) : modes(baseLanguage(s));
      const m = candidates.find((c) => c.target === t) ?? candidates.find((c) => c.target === baseLanguage(t));
      return m ? { source: s, target: t, model: m.mode } : undefined;
    }
    case "workers-ai":
      return M2M100_LANGUAGES.includes(baseLanguage(s)) && M2M100_LANGUAGES.includes(baseLanguage(t)) && baseLanguage(s) !== baseLanguage(t)
        ? { source: s, target: t, model: `${baseLanguage(s)}→${baseLanguage(t)}` }
        : undefined;
    case "replicate":
    case "openai-compatible": {
      const known = new Set(languages.map(languageKey));
      const has = (c: string) => known.has(c) || known.has(baseLanguage(c));
      return has(s) && has(t) ? { source: s, target: t, model: `${s}→${t}` } : undefined;
    }
  }
}

/** Every pair a backend can do, for the policy endpoint (base languages and the listed region forms). */
export function supportedPairs(backend: TranslationBackendName, languages: readonly string[] = []): LanguagePair[] {
  switch (backend) {
    case "apertium":
      return APERTIUM_MODES.map(({ source, target }) => ({ source, target }));
    case "workers-ai":
      return M2M100_LANGUAGES.flatMap((s) => M2M100_LANGUAGES.filter((t) => t !== s).map((t) => ({ source: s, target: t })));
    case "replicate":
    case "openai-compatible": {
      const list = [...new Set(languages.map(languageKey))];
      return list.flatMap((s) => list.filter((t) => t !== s).map((t) => ({ source: s, target: t })));
    }
  }
}
