import type { ViewToken } from "./view";

/**
 * Numbers said in words, as digits: speech recognisers that write words (PocketSphinx) give
 * "four one one one" or "four thousand one hundred eleven" where a written transcript has "4111".
 * Number-to-words libraries read a whole string and lose which words made which number; the
 * detectors need that mapping, so this is a small table-driven reader over the words.
 *
 * Digits said one by one stay separate numbers ("four one five" → 4 1 5: the patterns allow spaces
 * between digits); compounds join ("twenty three" → 23, "four hundred and fifteen" → 415,
 * "two thousand and five" → 2005); a year said in pairs stays two numbers ("nineteen eighty
 * five" → 19 85, which the date patterns read as a year); "double five" → 55; "oh" between
 * digits is 0, and the words a recogniser writes for a digit are that digit between two digits or
 * before two ("five to eight" → 5 2 8, "for one five" → 4 1 5); ordinals get their suffix ("twelfth" → 12th). English, Spanish and French.
 */

interface NumberWords {
  /** 0–9 */
  units: Record<string, number>;
  /** Single words for 10–99 (tens are multiples of ten from 20). */
  direct: Record<string, number>;
  /** Words that multiply what precedes by 100 ("hundred"), or are a hundreds value on their own ("doscientos"). */
  hundredMultiplier: readonly string[];
  hundreds: Record<string, number>;
  thousand: readonly string[];
  /** Joins parts of one number: "four hundred AND fifteen", "treinta Y dos", "vingt ET un". */
  joiners: readonly string[];
  ordinals: Record<string, number>;
  repeats: Record<string, number>;
  /** Read as 0 only next to other digits ("oh" is also an exclamation). */
  zeroBetweenDigits: readonly string[];
  /**
   * Words a recogniser writes for a digit it heard ("to" for two, "for" for four), read as that
   * digit only between two digits, or before two ("five to eight", "for one five" inside a number;
   * "went to eight" is not).
   */
  homophones: Record<string, number>;
}

const EN: NumberWords = {
  units: { zero: 0, nought: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9 },
  direct: {
    ten: 10,
    eleven: 11,
    twelve: 12,
    thirteen: 13,
    fourteen: 14,
    fifteen: 15,
    sixteen: 16,
    seventeen: 17,
    eighteen: 18,
    nineteen: 19,
    twenty: 20,
    thirty: 30,
    forty: 40,
    fourty: 40,
    fifty: 50,
    sixty: 60,
    seventy: 70,
    eighty: 80,
    ninety: 90,
  },
  hundredMultiplier: ["hundred"],
  hundreds: {},
  thousand: ["thousand"],
  joiners: ["and"],
  ordinals: {
    first: 1,
    second: 2,
    third: 3,
    fourth: 4,
    fifth: 5,
    sixth: 6,
    seventh: 7,
    eighth: 8,
    ninth: 9,
    tenth: 10,
    eleventh: 11,
    twelfth: 12,
    thirteenth: 13,
    fourteenth: 14,
    fifteenth: 15,
    sixteenth: 16,
    seventeenth: 17,
    eighteenth: 18,
    nineteenth: 19,
    twentieth: 20,
    thirtieth: 30,
  },
  repeats: { double: 2, triple: 3 },
  zeroBetweenDigits: ["oh", "o"],
  homophones: { to: 2, too: 2, for: 4, fore: 4, won: 1, ate: 8 },
};

const ES: NumberWords = {
  units: { cero: 0, uno: 1, una: 1, un: 1, dos: 2, tres: 3, cuatro: 4, cinco: 5, seis: 6, siete: 7, ocho: 8, nueve: 9 },
  direct: {
    diez: 10,
    once: 11,
    doce: 12,
    trece: 13,
    catorce: 14,
    quince: 15,
    dieciséis: 16,
    dieciseis: 16,
    diecisiete: 17,
    dieciocho: 18,
    diecinueve: 19,
    veinte: 20,
    veintiuno: 21,
    veintiún: 21,
    veintidós: 22,
    veintidos: 22,
    veintitrés: 23,
    veintitres: 23,
    veinticuatro: 24,
    veinticinco: 25,
    veintiséis: 26,
    veintiseis: 26,
    veintisiete: 27,
    veintiocho: 28,
    veintinueve: 29,
    treinta: 30,
    cuarenta: 40,
    cincuenta: 50,
    sesenta: 60,
    setenta: 70,
    ochenta: 80,
    noventa: 90,
  },
  hundredMultiplier: [],
  hundreds: {
    cien: 100,
    ciento: 100,
    doscientos: 200,
    doscientas: 200,
    trescientos: 300,
    trescientas: 300,
    cuatrocientos: 400,
    cuatrocientas: 400,
    quinientos: 500,
    quinientas: 500,
    seiscientos: 600,
    seiscientas: 600,
    setecientos: 700,
    setecientas: 700,
    ochocientos: 800,
    ochocientas: 800,
    novecientos: 900,
    novecientas: 900,
  },
  thousand: ["mil"],
  joiners: ["y"],
  ordinals: { primero: 1 },
  repeats: {},
  zeroBetweenDigits: [],
  homophones: {},
};

const FR: NumberWords = {
  units: { zéro: 0, zero: 0, un: 1, une: 1, deux: 2, trois: 3, quatre: 4, cinq: 5, six: 6, sept: 7, huit: 8, neuf: 9 },
  direct: {
    dix: 10,
    onze: 11,
    douze: 12,
    treize: 13,
    quatorze: 14,
    quinze: 15,
    seize: 16,
    "dix-sept": 17,
    "dix-huit": 18,
    "dix-neuf": 19,
    vingt: 20,
    trente: 30,
    quarante: 40,
    cinquante: 50,
    soixante: 60,
    "soixante-dix": 70,
    "quatre-vingt": 80,
    "quatre-vingts": 80,
    "quatre-vingt-dix": 90,
    septante: 70,
    huitante: 80,
    octante: 80,
    nonante: 90,
  },
  hundredMultiplier: ["cent", "cents"],
  hundreds: {},
  thousand: ["mille"],
  joiners: ["et"],
  ordinals: { premier: 1, première: 1 },
  repeats: {},
  zeroBetweenDigits: [],
  homophones: {},
};

const TABLES: Record<string, NumberWords> = { en: EN, es: ES, fr: FR };

/** The language's number words (English for languages without a table: ASR in English is the common case). */
const tableFor = (language: string): NumberWords => TABLES[language.slice(0, 2).toLowerCase()] ?? EN;

/** A word without surrounding punctuation, lower-cased: what the tables are keyed by. */
export const coreOf = (word: string): string =>
  word
    .toLowerCase()
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")
    .replace(/’/g, "'");

const ordinalSuffix = (n: number): string => {
  const lastTwo = n % 100;
  if (lastTwo >= 11 && lastTwo <= 13) return "th";
  return ({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th";
};

type Kind = "unit" | "teen" | "tens" | "compound" | "hundred" | "thousand";

interface Parsed {
  value: number;
  kind: Kind;
}

/** A word's number meaning, for the words that have one on their own. */
function parseWord(core: string, t: NumberWords): Parsed | null {
  if (core in t.units) return { value: t.units[core]!, kind: "unit" };
  if (core in t.direct) {
    const v = t.direct[core]!;
    return { value: v, kind: v % 10 === 0 && v >= 20 ? "tens" : v < 20 ? "teen" : "compound" };
  }
  if (core in t.hundreds) return { value: t.hundreds[core]!, kind: "hundred" };
  const hyphenated = core.split("-");
  // "twenty-three", "thirty-one"
  if (hyphenated.length === 2 && t.direct[hyphenated[0]!] !== undefined && t.units[hyphenated[1]!] !== undefined) {
    const tens = t.direct[hyphenated[0]!]!;
    if (tens >= 20 && tens % 10 === 0) return { value: tens + t.units[hyphenated[1]!]!, kind: "compound" };
  }
  return null;
}

/**
 * The words as view tokens, each run of number words one token of digits (ordinals with their
 * suffix), every other word as it is. Punctuation after a number word stays after its digits.
 */
export function numberTokens(words: readonly string[], language: string): ViewToken[] {
  const t = tableFor(language);
  const cores = words.map(coreOf);
  const out: ViewToken[] = [];
  const isDigitWord = (i: number) => i >= 0 && i < cores.length && (cores[i]! in t.units || parseWord(cores[i]!, t) !== null);
  let i = 0;
  while (i < words.length) {
    const core = cores[i]!;
    // "double five" → 55
    const times = t.repeats[core];
    if (times !== undefined && i + 1 < words.length && cores[i + 1]! in t.units) {
      out.push({ text: String(t.units[cores[i + 1]!]).repeat(times) + trailing(words[i + 1]!), from: i, to: i + 2 });
      i += 2;
      continue;
    }
    if (t.zeroBetweenDigits.includes(core) && (isDigitWord(i - 1) || isDigitWord(i + 1) || /\d$/.test(out.at(-1)?.text ?? ""))) {
      out.push({ text: "0" + trailing(words[i]!), from: i, to: i + 1 });
      i++;
      continue;
    }
    const heard = t.homophones[core];
    const afterDigit = /^\d+$/.test(out.at(-1)?.text ?? "");
    if (heard !== undefined && isDigitWord(i + 1) && (afterDigit || isDigitWord(i + 2))) {
      out.push({ text: String(heard) + trailing(words[i]!), from: i, to: i + 1 });
      i++;
      continue;
    }
    const parsed = readNumber(cores, i, t);
    if (parsed) {
      const last = words[parsed.end - 1]!;
      out.push({ text: parsed.text + trailing(last), from: i, to: parsed.end });
      i = parsed.end;
      continue;
    }
    out.push({ text: words[i]!, from: i, to: i + 1 });
    i++;
  }
  return out;
}

const trailing = (word: string): string => /[^\p{L}\p{N}]*$/u.exec(word)?.[0] ?? "";

/** The number starting at word `start` (as digits) and the index after its last word; null when none starts there. */
function readNumber(cores: readonly string[], start: number, t: NumberWords): { text: string; end: number } | null {
  let total = 0;
  let current = 0;
  let last: Kind | null = null;
  let end = start;
  let ordinal: number | null = null;
  for (let i = start; i < cores.length; i++) {
    const core = cores[i]!;
    if (last !== null && t.joiners.includes(core)) {
      // A joiner belongs to the number only when a part that combines follows it.
      const next = cores[i + 1] !== undefined ? parseWord(cores[i + 1]!, t) : null;
      const joins =
        next !== null &&
        ((last === "hundred" || last === "thousand") && next.kind !== "hundred"
          ? true
          : last === "tens" && next.kind === "unit" && next.value > 0);
      if (!joins) break;
      continue;
    }
    if (last === "tens" || last === "hundred" || last === "thousand" || last === null) {
      const ord = t.ordinals[core];
      if (ord !== undefined && (last === null ? true : ord < 10 || last !== "tens")) {
        current += ord;
        ordinal = ord;
        end = i + 1;
        last = "unit";
        break;
      }
    }
    if (t.hundredMultiplier.includes(core)) {
      if (last === null || last === "thousand") current += 100;
      else if ((last === "unit" || last === "teen") && current % 100 !== 0) current = current * 100;
      else break;
      last = "hundred";
      end = i + 1;
      continue;
    }
    if (t.thousand.includes(core)) {
      if (last === "thousand") break;
      total += (current === 0 ? 1 : current) * 1000;
      current = 0;
      last = "thousand";
      end = i + 1;
      continue;
    }
    const p = parseWord(core, t);
    if (!p) break;
    const combines =
      last === null ||
      ((last === "hundred" || last === "thousand") && p.kind !== "thousand" && (p.kind !== "hundred" || last === "thousand")) ||
      (last === "tens" && p.kind === "unit" && p.value > 0);
    if (!combines) break;
    current += p.value;
    last = p.kind;
    end = i + 1;
  }
  if (end === start) return null;
  const value = total + current;
  return { text: ordinal !== null ? `${value}${ordinalSuffix(value)}` : String(value), end };
}
