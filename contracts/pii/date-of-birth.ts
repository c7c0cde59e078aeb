import { cueNear, type DetectionInput, type EntitySpan } from "./entity-span";
import { buildView, wordsOfRange, type ViewToken } from "./view";

/**
 * Dates of birth: a date (numeric, or with a month's name in any supported language, spoken
 * numbers read as digits, a year said in pairs "nineteen eighty five" included) with a birth cue
 * a few words before it or just after it ("born", "date of birth", "DOB", "birthday", "nací",
 * "fecha de nacimiento", "né le", "date de naissance", "geboren", "Geburtsdatum", "nato il",
 * "data di nascita", "nasci", "data de nascimento", "geboortedatum"). A date with no such cue
 * (a meeting, a deadline) is not personal data on its own and stays.
 */
const MONTHS = [
  "january|february|march|april|may|june|july|august|september|october|november|december",
  "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec",
  "enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre",
  "janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre",
  "januar|jänner|februar|märz|maerz|april|mai|juni|juli|august|september|oktober|november|dezember",
  "gennaio|febbraio|marzo|aprile|maggio|giugno|luglio|agosto|settembre|ottobre|novembre|dicembre",
  "janeiro|fevereiro|março|marco|abril|maio|junho|julho|agosto|setembro|outubro|novembro|dezembro",
  "januari|februari|maart|april|mei|juni|juli|augustus|september|oktober|november|december",
].join("|");
const DAY = String.raw`(?:[0-3]?\d)(?:st|nd|rd|th|º|°|er|\.)?`;
/** A year as digits, or said in pairs ("19 85"), or "2000"-style already joined. */
const YEAR = String.raw`(?:(?:1[89]|20)\d{2}|(?:1[89]|20) \d{2})`;
const OF = String.raw`(?:\s+(?:of|de|del|di))?`;
const DATE = new RegExp(
  [
    String.raw`(?<![\p{L}\p{N}])[0-3]?\d[./-][0-3]?\d[./-](?:\d{4}|\d{2})(?![\p{N}])`,
    String.raw`(?<![\p{L}\p{N}])\d{4}-[01]\d-[0-3]\d(?![\p{N}])`,
    String.raw`(?<![\p{L}\p{N}])(?:${MONTHS})\.?\s+(?:the\s+)?${DAY}(?:,?\s+${YEAR})?(?![\p{L}\p{N}])`,
    String.raw`(?<![\p{L}\p{N}])(?:the\s+)?${DAY}${OF}\s+(?:${MONTHS})\.?(?:,?${OF}\s+${YEAR})?(?![\p{L}\p{N}])`,
  ].join("|"),
  "giu",
);
const CUE =
  /\bborn\b|\bbirth|\bdob\b|d\.o\.b|birthday|naci|cumplea|(?:^|[^\p{L}])née?(?![\p{L}])|naissance|anniversaire|geboren|geburts|\bnat[oa]\b|nascit|compleanno|\bnasci|aniversári|geboorte|verjaardag/u;

export function detectDatesOfBirth(input: DetectionInput, numberTokens: readonly ViewToken[]): EntitySpan[] {
  const view = buildView(numberTokens);
  const spans: EntitySpan[] = [];
  for (const m of view.text.matchAll(DATE)) {
    const words = wordsOfRange(view, m.index, m.index + m[0].length);
    if (words && cueNear(input.words, words.from, words.to, CUE, 8, 4)) spans.push({ type: "DATE_OF_BIRTH", ...words });
  }
  return spans;
}
