import { isValidPhoneNumber, type CountryCode } from "libphonenumber-js/max";
import type { CodeWindow } from "./code-runs";

/**
 * A phone number: libphonenumber-js's full metadata (the number types' patterns, not only lengths) says the digits are a valid number of a country
 * the language is spoken in (an international number with "+"/"plus" needs none), so a random
 * run of digits is not one. Tried per country, the language's main one first.
 */
const REGIONS: Record<string, readonly CountryCode[]> = {
  en: ["US", "GB", "IE", "AU", "CA"],
  es: ["ES", "MX", "AR", "CO"],
  fr: ["FR", "BE", "CH", "CA"],
  de: ["DE", "AT", "CH"],
  it: ["IT", "CH"],
  pt: ["PT", "BR"],
  nl: ["NL", "BE"],
};
const ALL_REGIONS = [...new Set(Object.values(REGIONS).flat())];

/**
 * Countries whose national numbers are dialled with a leading 0: a number said there without it
 * is not a phone number as people say one, and accepting it would take any nine or ten digits.
 */
const TRUNK_ZERO = new Set<CountryCode>(["GB", "IE", "AU", "FR", "BE", "CH", "DE", "AT", "NL", "AR", "BR"]);

export function isPhoneNumber(w: CodeWindow, lang: string): boolean {
  if (!/^\d{7,15}$/.test(w.compact)) return false;
  if (w.plus || w.compact.startsWith("00")) return isValidPhoneNumber(`+${w.compact.replace(/^00/, "")}`);
  return (REGIONS[lang] ?? ALL_REGIONS).some(
    (region) => (!TRUNK_ZERO.has(region) || w.compact.startsWith("0")) && isValidPhoneNumber(w.compact, region),
  );
}
