import type { DetectionInput, EntitySpan } from "./entity-span";
import { buildView, wordsOfRange, type ViewToken } from "./view";

/**
 * Street addresses: a house number and a street name with its type, in each language's order
 * ("22 Baker Street", "calle de Alcalá 45", "12 rue de la Paix", "Hauptstraße 5", "via Roma 10",
 * "rua Augusta 25", "Kalverstraat 92"). Read over the words with spoken numbers as digits ("twenty
 * two baker street"). The street's name is one to four words; in English those words may not be
 * function words ("10 minutes down the road" is no address). City and postcode are not included.
 */
const STOP = new Set(
  "the a an of to in on at and or but my your his her our their its this that these those down up from for with by into over under near".split(
    " ",
  ),
);
const NAME_WORD = String.raw`[\p{L}][\p{L}'’.-]*`;
const CAP_NAME = String.raw`\p{Lu}[\p{L}'’.-]*`;
/** Street-type words in either case at their start ("Rue", "rue"), so the name after them can still be told by its capital. */
const types = (words: string): string =>
  words
    .split("|")
    .map((w) => `[${w[0]!.toUpperCase()}${w[0]}]${w.slice(1).replace(/[./]/g, "\\$&")}`)
    .join("|");
const PARTICLES = String.raw`(?:(?:de|del|de la|de los|de las|du|des|de l'|d'|della|dello|dei|di|da|do|dos|das|van|van de|van der)\s+)`;

const EN = new RegExp(
  String.raw`(?<![\p{L}\p{N}])\d{1,5}[a-z]?\s+((?:${NAME_WORD}\s+){1,4}?)(?:street|st|avenue|ave|road|rd|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|terrace|close|crescent|square|highway|parkway|row|gardens|grove)\b\.?`,
  "giu",
);
const BY_LANGUAGE: Record<string, readonly RegExp[]> = {
  es: [
    new RegExp(
      String.raw`(?<![\p{L}])(?:${types("calle|avenida|avda.|plaza|paseo|camino|carrera|ronda|glorieta")})\s+${PARTICLES}?${CAP_NAME}(?:\s+${PARTICLES}?${CAP_NAME}){0,3},?\s+(?:n[úu]mero\s+|n[º°o]\.?\s*)?\d{1,4}\b`,
      "gu",
    ),
  ],
  fr: [
    new RegExp(
      String.raw`(?<![\p{L}\p{N}])\d{1,4}(?:\s*(?:bis|ter))?,?\s+(?:${types("rue|avenue|boulevard|bd|place|chemin|impasse|allée|quai|cours|route")})\s+${PARTICLES}?${CAP_NAME}(?:\s+${PARTICLES}?${CAP_NAME}){0,3}`,
      "gu",
    ),
  ],
  de: [
    new RegExp(String.raw`(?<![\p{L}])[\p{L}-]*(?:straße|strasse|str\.|weg|platz|allee|gasse|ring|damm)\s+\d{1,4}[a-z]?\b`, "giu"),
    new RegExp(String.raw`${CAP_NAME}\s+(?:Straße|Strasse|Weg|Platz|Allee)\s+\d{1,4}[a-z]?\b`, "gu"),
  ],
  it: [
    new RegExp(
      String.raw`(?<![\p{L}])(?:${types("via|viale|piazza|corso|vicolo|largo|piazzale")})\s+${PARTICLES}?${CAP_NAME}(?:\s+${PARTICLES}?${CAP_NAME}){0,3},?\s+\d{1,4}\b`,
      "gu",
    ),
  ],
  pt: [
    new RegExp(
      String.raw`(?<![\p{L}])(?:${types("rua|avenida|av.|travessa|praça|largo|estrada|alameda")})\s+${PARTICLES}?${CAP_NAME}(?:\s+${PARTICLES}?${CAP_NAME}){0,3},?\s+(?:n\.?[º°]\s*)?\d{1,4}\b`,
      "gu",
    ),
  ],
  nl: [new RegExp(String.raw`(?<![\p{L}])[\p{L}-]*(?:straat|laan|weg|plein|gracht|kade|singel|dijk|steeg)\s+\d{1,4}[a-z]?\b`, "giu")],
};
const ALL = Object.values(BY_LANGUAGE).flat();

export function detectAddresses(input: DetectionInput, numberTokens: readonly ViewToken[]): EntitySpan[] {
  const view = buildView(numberTokens);
  const spans: EntitySpan[] = [];
  const patterns = input.lang === "en" ? [EN] : [EN, ...(BY_LANGUAGE[input.lang] ?? ALL)];
  for (const pattern of patterns) {
    for (const m of view.text.matchAll(pattern)) {
      // English street names made of function words are phrases, not streets.
      if (
        pattern === EN &&
        m[1]!
          .trim()
          .split(/\s+/)
          .some((w) => STOP.has(w.toLowerCase()))
      )
        continue;
      const words = wordsOfRange(view, m.index, m.index + m[0].length);
      if (words) spans.push({ type: "ADDRESS", ...words });
    }
  }
  return spans;
}
