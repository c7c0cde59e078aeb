import isTaxID from "validator/lib/isTaxID.js";
import type { CodeWindow } from "./code-runs";

/**
 * National identity and tax numbers of the supported languages' countries. Each has a format and,
 * where the country defines one, a check that the number must pass:
 *
 * | number | check | needs a cue nearby |
 * |---|---|---|
 * | US Social Security number | area/group/serial rules (no check digit) | unless written 123-45-6789 |
 * | UK National Insurance number | prefix and suffix letters (validator, en-GB) | no |
 * | ES DNI / NIE | check letter (validator, es-ES) | no |
 * | FR NIR (numéro de sécurité sociale) | mod-97 key, month and sex digits | no |
 * | DE Steuer-ID | ISO 7064 check digit, digit repetition rule (validator, de-DE) | yes |
 * | IT codice fiscale | check letter (validator, it-IT) | no |
 * | PT NIF | mod-11 check digit (validator, pt-PT) | yes |
 * | NL BSN | 11-proef (validator, nl-NL) | yes |
 *
 * A number of digits only whose check passes by chance once in 10 or 11 (BSN, NIF, Steuer-ID, an
 * SSN said as nine digits) counts only with a cue within a few words before it ("BSN", "número de
 * contribuinte", "social security"; "ID number" in the number's own country's language) and when
 * it stands alone, so a nine-digit order number is not redacted, nor nine digits out of a longer number.
 */
/** Cues for the numbers that need one: the generic ones stand for any; the others for their own number only. */
const GENERIC_CUE = /\bid\b|identification|identity|national|número de identificación|numéro d'identification/;
const CUES = {
  ssn: /social security|\bssn\b/,
  steuerId: /steuer|identifikationsnummer/,
  nif: /\bnif\b|contribuinte|fiscal/,
  bsn: /\bbsn\b|burgerservice|sofinummer/,
};

/** Every cue, for finding the words said before a number. */
export const ID_CUE = new RegExp([GENERIC_CUE, ...Object.values(CUES)].map((r) => r.source).join("|"));

/**
 * Whether the window is a national ID number. `cue` is what was said in the few words before it
 * (lower case), or null when the window has digits right before or after it (a weak number must stand alone).
 */
export function isNationalId(w: CodeWindow, cue: string | null, lang: string): boolean {
  const c = w.compact;
  const cued = (own: RegExp, language: string) => cue !== null && (own.test(cue) || (GENERIC_CUE.test(cue) && lang === language));
  if (/^\d{3}-\d{2}-\d{4}$/.test(w.raw) && isSsn(c)) return true;
  if (/^[A-Z]{2}\d{6}[A-D]$/.test(c) && taxId(c, "en-GB")) return true;
  if (/^(\d{8}|[XYZ]\d{7})[A-Z]$/.test(c) && taxId(c, "es-ES")) return true;
  if (/^[12]\d{4}(\d{2}|2A|2B)\d{6}\d{2}$/.test(c) && isNir(c)) return true;
  if (/^[A-Z]{6}[0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{2}[A-Z][0-9LMNPQRSTUV]{3}[A-Z]$/.test(c) && taxId(c, "it-IT")) return true;
  if (/^\d{9}$/.test(c) && cued(CUES.ssn, "en") && isSsn(c)) return true;
  if (/^\d{11}$/.test(c) && cued(CUES.steuerId, "de") && taxId(c, "de-DE")) return true;
  if (/^\d{9}$/.test(c) && cued(CUES.nif, "pt") && taxId(c, "pt-PT")) return true;
  if (/^\d{9}$/.test(c) && cued(CUES.bsn, "nl") && taxId(c, "nl-NL")) return true;
  return false;
}

/** validator throws on a locale it lacks; every locale used here exists, but a throw must not end the redaction. */
function taxId(value: string, locale: string): boolean {
  try {
    return isTaxID(value, locale);
  } catch {
    return false;
  }
}

/** SSA's rules: area 001–899 but not 666, group 01–99, serial 0001–9999. */
function isSsn(digits: string): boolean {
  const area = Number(digits.slice(0, 3));
  return area > 0 && area !== 666 && area < 900 && digits.slice(3, 5) !== "00" && digits.slice(5) !== "0000";
}

/** INSEE's key: 97 − (the first 13 characters mod 97), Corsica's 2A and 2B read as 19 and 18; month 01–12 or 20–42 (unknown). */
function isNir(c: string): boolean {
  const month = Number(c.slice(3, 5));
  if (!((month >= 1 && month <= 12) || (month >= 20 && month <= 42))) return false;
  const body = c.slice(0, 13).replace("2A", "19").replace("2B", "18");
  const key = 97 - Number(BigInt(body) % 97n);
  return key === Number(c.slice(13));
}
