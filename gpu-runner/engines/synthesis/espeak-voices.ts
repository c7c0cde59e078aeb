import { execFileSync } from "node:child_process";
import { languageKey } from "../../../contracts/translation-languages";

/**
 * Which eSpeak NG voice speaks a request language code. The list is eSpeak NG's own
 * (`espeak-ng --voices`, read once per binary), so every language the installed eSpeak NG has is
 * offered, and nothing else.
 *
 * A request code is matched in this order:
 *  1. the exact voice (`es-419`, `pt-BR` → `pt-br`, `en-US` → `en-us`, `fr-BE`);
 *  2. a regional rule eSpeak's names do not spell out: any Spanish region outside Spain → `es-419`
 *     (Latin American Spanish), `zh`/`zh-*` → `cmn` (Mandarin), `no` → `nb`, `hbs` → `hr`;
 *  3. the base language's voice (`en-AU` → `en`), with eSpeak's choice for a bare code except
 *     English (`en-us`, the most common target) and French (`fr-fr`, which has no bare voice).
 */
export interface EspeakVoiceList {
  /** Lower-case voice codes as `-v` takes them. */
  voices: ReadonlySet<string>;
  /** Every request code the list serves, base codes included (`es`, `es-419`, `pt-BR`, …). */
  languages: readonly string[];
}

const cache = new Map<string, EspeakVoiceList>();

export function espeakVoiceList(bin: string): EspeakVoiceList {
  const cached = cache.get(bin);
  if (cached) return cached;
  const out = execFileSync(bin, ["--voices"], { encoding: "utf8", timeout: 10_000 });
  const list = parseVoiceList(out);
  cache.set(bin, list);
  return list;
}

/** `espeak-ng --voices` output: `Pty Language Age/Gender VoiceName File Other Languages`. */
export function parseVoiceList(out: string): EspeakVoiceList {
  const voices = new Set<string>();
  for (const line of out.split("\n").slice(1)) {
    const code = line.trim().split(/\s+/)[1];
    if (code && code !== "variant") voices.add(code.toLowerCase());
  }
  const languages = new Set<string>();
  for (const v of voices) {
    const [base] = v.split("-");
    // Private-use and script-tagged voices (`chr-us-qaaa-x-west`, `cmn-latn-pinyin`) serve only their base code.
    if (base && /^[a-z]{2,3}$/.test(base)) languages.add(base);
    if (/^[a-z]{2,3}-([a-z]{2}|\d{3})$/.test(v)) languages.add(languageKey(v));
  }
  for (const [from, to] of Object.entries(ALIASES)) if (voices.has(to)) languages.add(from);
  return { voices, languages: [...languages].sort() };
}

const ALIASES: Record<string, string> = { zh: "cmn", no: "nb", hbs: "hr" };
const BARE_DEFAULTS: Record<string, string> = { en: "en-us", fr: "fr-fr" };

/** The `-v` voice for a request code, or undefined when eSpeak NG has none for it. */
export function espeakVoiceFor(list: EspeakVoiceList, language: string): string | undefined {
  const key = languageKey(language).toLowerCase();
  const [base = "", region] = key.split("-");
  if (list.voices.has(key) && region !== undefined) return key;
  if (base === "es" && region !== undefined && region !== "es" && list.voices.has("es-419")) return "es-419";
  const alias = ALIASES[base];
  if (alias && list.voices.has(alias)) return alias;
  const bare = BARE_DEFAULTS[base];
  if (bare && list.voices.has(bare)) return bare;
  if (list.voices.has(base)) return base;
  return undefined;
}
