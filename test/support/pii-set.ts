import { isValidIBAN } from "ibantools";
import { isCardNumber } from "../../contracts/pii/card-number";
import type { CodeWindow } from "../../contracts/pii/code-runs";
import { isNationalId } from "../../contracts/pii/national-id";
import type { PiiEntityType } from "../../contracts/redaction";

/**
 * The labelled set for redaction (bench/redaction.ts, test/node/pii): sentences with planted
 * personal data of every type, and sentences with none (some with near misses: a card number that
 * fails its Luhn check, an IBAN with a wrong check, a date that is not a birth date), made by a
 * seeded generator so every run builds the same set. Each entity has its written form (what a
 * transcript with digits and punctuation shows) and its spoken form (what a person says, for the
 * synthesiser: digits one by one, "john dot smith at example dot com"). `language` is the
 * sentence's; the spoken set uses the English ones only (the local recogniser is English only).
 */
export interface PlantedEntity {
  type: PiiEntityType;
  written: string;
  spoken: string;
}

export type SentencePart = string | PlantedEntity;

export interface LabelledSentence {
  language: string;
  parts: readonly SentencePart[];
}

/** Where a planted entity is in a sentence's written words (end exclusive). */
export interface EntityWords {
  type: PiiEntityType;
  from: number;
  to: number;
}

/** A deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DIGIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
/** Digits said one by one, groups separated by a comma (a breath). */
const sayDigits = (groups: readonly string[]): string =>
  groups.map((g) => [...g].map((d) => (/\d/.test(d) ? DIGIT_WORDS[Number(d)] : d.toLowerCase())).join(" ")).join(", ");

const FIRST = [
  "John",
  "Mary",
  "David",
  "Sarah",
  "Michael",
  "Emma",
  "James",
  "Linda",
  "Robert",
  "Susan",
  "Peter",
  "Laura",
  "Thomas",
  "Karen",
  "Daniel",
  "Helen",
];
const LAST = [
  "Smith",
  "Johnson",
  "Brown",
  "Miller",
  "Davis",
  "Wilson",
  "Taylor",
  "Moore",
  "Clark",
  "Lewis",
  "Walker",
  "Young",
  "Allen",
  "Turner",
  "Parker",
  "Cooper",
];
const DOMAINS = [
  ["example", "com"],
  ["mail", "com"],
  ["company", "org"],
  ["acme", "net"],
];
const STREETS = ["Baker", "Maple", "Oak", "Elm", "Church", "Park", "Mill", "High", "Cedar", "Lake"];
const STREET_TYPES = ["Street", "Avenue", "Road", "Lane", "Drive"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const ORDINALS = [
  "first",
  "second",
  "third",
  "fourth",
  "fifth",
  "sixth",
  "seventh",
  "eighth",
  "ninth",
  "tenth",
  "eleventh",
  "twelfth",
  "thirteenth",
  "fourteenth",
  "fifteenth",
  "sixteenth",
  "seventeenth",
  "eighteenth",
  "nineteenth",
  "twentieth",
  "twenty first",
  "twenty second",
  "twenty third",
  "twenty fourth",
  "twenty fifth",
  "twenty sixth",
  "twenty seventh",
  "twenty eighth",
];

const luhnDigit = (body: string): string => {
  let sum = 0;
  [...body].reverse().forEach((c, i) => {
    let d = Number(c);
    if (i % 2 === 0) d *= 2;
    if (d > 9) d -= 9;
    sum += d;
  });
  return String((10 - (sum % 10)) % 10);
};

const windowOf = (compact: string, raw = compact): CodeWindow => ({ compact, raw, plus: false, from: 0, to: 1, first: 0, last: 1 });

class Generator {
  private readonly r: () => number;
  constructor(seed: number) {
    this.r = rng(seed);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }
  digits(n: number): string {
    return Array.from({ length: n }, () => String(Math.floor(this.r() * 10))).join("");
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }

  person(): PlantedEntity {
    const name = `${this.pick(FIRST)} ${this.pick(LAST)}`;
    return { type: "PERSON", written: name, spoken: name };
  }
  email(): PlantedEntity {
    const first = this.pick(FIRST).toLowerCase();
    const last = this.pick(LAST).toLowerCase();
    const [domain, tld] = this.pick(DOMAINS)!;
    const sep = this.pick([".", "", "."]);
    return {
      type: "EMAIL",
      written: `${first}${sep}${last}@${domain}.${tld}`,
      spoken: `${first}${sep === "." ? " dot " : " "}${last} at ${domain} dot ${tld}`,
    };
  }
  phone(): PlantedEntity {
    const area = this.pick(["415", "212", "312", "617", "206", "303", "404", "512"]);
    let exchange = String(this.int(201, 989));
    if (/^\d11$|555/.test(exchange)) exchange = "386";
    const line = this.digits(4);
    const written = [
      `(${area}) ${exchange}-${line}`,
      `${area}-${exchange}-${line}`,
      `+1 ${area} ${exchange} ${line}`,
      `${area}.${exchange}.${line}`,
      `${area}${exchange}${line}`,
    ][this.int(0, 4)]!;
    return { type: "PHONE", written, spoken: sayDigits([area, exchange, line]) };
  }
  card(valid = true): PlantedEntity {
    const kind = this.int(0, 3);
    const prefix = ["4", this.pick(["51", "52", "53", "54", "55"]), this.pick(["34", "37"]), "6011"][kind]!;
    const length = kind === 2 ? 15 : 16;
    const body = prefix + this.digits(length - 1 - prefix.length);
    let check = luhnDigit(body);
    if (!valid) check = String((Number(check) + 1 + this.int(0, 8)) % 10);
    const number = body + check;
    const groups = kind === 2 ? [number.slice(0, 4), number.slice(4, 10), number.slice(10)] : number.match(/.{4}/g)!;
    if (valid && !isCardNumber(windowOf(number))) throw new Error(`generated card ${number} does not validate`);
    return { type: "CARD_NUMBER", written: groups.join(this.pick([" ", " ", "-", ""])), spoken: sayDigits(groups) };
  }
  iban(valid = true): PlantedEntity {
    for (;;) {
      const country = this.pick(["DE", "GB", "NL"]);
      const bban =
        country === "DE"
          ? this.digits(18)
          : country === "GB"
            ? this.pick(["NWBK", "BARC", "MIDL"]) + this.digits(14)
            : this.pick(["ABNA", "RABO", "INGB"]) + this.digits(10);
      const numeric = [...(bban + country + "00")].map((c) => (/\d/.test(c) ? c : String(c.charCodeAt(0) - 55))).join("");
      let check = 98 - Number(BigInt(numeric) % 97n);
      if (!valid) check = ((check + this.int(1, 50)) % 97) + 2;
      const iban = `${country}${String(check).padStart(2, "0")}${bban}`;
      if (isValidIBAN(iban) !== valid) continue;
      const groups = iban.match(/.{1,4}/g)!;
      return { type: "IBAN", written: groups.join(" "), spoken: sayDigits(groups.map((g) => [...g].join(" "))) };
    }
  }
  ssn(): PlantedEntity {
    const area = String(this.int(101, 665)).padStart(3, "0");
    const group = String(this.int(10, 99));
    const serial = String(this.int(1000, 9999));
    return { type: "NATIONAL_ID", written: `${area}-${group}-${serial}`, spoken: sayDigits([area, group, serial]) };
  }
  nino(): PlantedEntity {
    const letters = this.pick(["AB", "CE", "JG", "KM", "PR", "SW"]);
    const digits = [this.digits(2), this.digits(2), this.digits(2)];
    const suffix = this.pick(["A", "B", "C", "D"]);
    const written = `${letters} ${digits.join(" ")} ${suffix}`;
    return { type: "NATIONAL_ID", written, spoken: sayDigits([[...letters].join(" "), ...digits, suffix]) };
  }
  /** A national number of another country, written: generated until its check passes. */
  foreignId(kind: "dni" | "nir" | "steuer" | "bsn" | "nif"): PlantedEntity {
    for (;;) {
      let written: string;
      if (kind === "dni") {
        const n = this.digits(8);
        written = n + "TRWAGMYFPDXBNJZSQVHLCKE"[Number(n) % 23];
      } else if (kind === "nir") {
        const body = `${this.int(1, 2)}${this.digits(2)}${String(this.int(1, 12)).padStart(2, "0")}${String(this.int(1, 95)).padStart(2, "0")}${this.digits(6)}`;
        const key = String(97 - Number(BigInt(body) % 97n)).padStart(2, "0");
        written = `${body[0]} ${body.slice(1, 3)} ${body.slice(3, 5)} ${body.slice(5, 7)} ${body.slice(7, 10)} ${body.slice(10)} ${key}`;
      } else written = this.digits(kind === "steuer" ? 11 : 9);
      if (isNationalId(windowOf(written.replace(/ /g, ""), written), kind, "")) return { type: "NATIONAL_ID", written, spoken: written };
    }
  }
  address(): PlantedEntity {
    const written = `${this.int(2, 250)} ${this.pick(STREETS)} ${this.pick(STREET_TYPES)}`;
    return { type: "ADDRESS", written, spoken: written };
  }
  dateOfBirth(): PlantedEntity {
    const day = this.int(1, 28);
    const month = this.int(0, 11);
    const year = this.int(1940, 2005);
    const style = this.int(0, 2);
    const spoken = `${MONTHS[month]} ${ORDINALS[day - 1]}, ${year}`;
    if (style === 0) return { type: "DATE_OF_BIRTH", written: `${MONTHS[month]} ${day}, ${year}`, spoken };
    if (style === 1) return { type: "DATE_OF_BIRTH", written: `${day} ${MONTHS[month]} ${year}`, spoken };
    return { type: "DATE_OF_BIRTH", written: `${String(month + 1).padStart(2, "0")}/${String(day).padStart(2, "0")}/${year}`, spoken };
  }
}

type Template = (e: PlantedEntity) => SentencePart[];
const T =
  (before: string, after: string): Template =>
  (e) => [before, e, after];

const TEMPLATES: Record<PiiEntityType, readonly Template[]> = {
  PERSON: [
    T("My name is", "and I am calling about my order."),
    T("I spoke with", "yesterday afternoon about the delivery."),
    T("Please send the contract to", "before Friday."),
    T("This morning", "asked for a copy of the invoice."),
    T("The project is led by", "from the London office."),
  ],
  EMAIL: [
    T("You can email me at", "any time this week."),
    T("My address for the invoice is", "thank you."),
    T("Please send the report to", "before noon."),
    T("Write to", "if the parcel does not arrive."),
  ],
  PHONE: [
    T("You can call me on", "after six in the evening."),
    T("My phone number is", "if you need anything."),
    T("Please ring", "to confirm the booking."),
    T("The number to call back is", "thank you."),
  ],
  CARD_NUMBER: [
    T("My card number is", "and it expires next year."),
    T("Please charge the card", "for the whole amount."),
    T("The payment went through on card", "this morning."),
  ],
  IBAN: [
    T("My account number is", "at the local bank."),
    T("Please transfer the money to", "by Friday."),
    T("The refund should go to", "thank you."),
  ],
  NATIONAL_ID: [
    T("My social security number is", "if you need it."),
    T("For the form, my national insurance number is", "as printed on the letter."),
  ],
  ADDRESS: [
    T("I live at", "near the station."),
    T("Please deliver the parcel to", "before five."),
    T("Our new office is at", "on the second floor."),
  ],
  DATE_OF_BIRTH: [
    T("I was born on", "in a small town."),
    T("My date of birth is", "as on my passport."),
    T("Her birthday is", "and she will be there."),
  ],
};

/** Sentences with no personal data: everyday talk, numbers that are not entities, and near misses. */
const PLAIN = [
  "The meeting moved to March 12, 2024 because of the holiday.",
  "We shipped 4500 units in 2019 and twice as many last year.",
  "The order number is 20453 and it left the warehouse today.",
  "Take the main road for ten minutes and turn left at the bridge.",
  "The invoice total was 1,250 dollars including tax.",
  "Version 3 of the app is out and it is much faster.",
  "The train leaves at 7:45 from platform 9.",
  "We need about 300 chairs and 40 tables for the event.",
  "The report is due on the 15th of June.",
  "The weather was lovely and we walked along the river.",
  "Please remember to lock the door when you leave.",
  "The new model uses less power than the old one.",
  "Our team grew from 12 to 30 people in two years.",
  "The recipe needs two cups of flour and three eggs.",
  "The deadline for the proposal is Friday, October 3.",
  "Room 214 is on the second floor next to the kitchen.",
  "The price went up by 5 percent in the spring.",
  "We will review the budget at the end of the quarter.",
  "The children played in the park until the sun went down.",
  "The software update fixed most of the crashes.",
];
const NEAR_MISS: Template[] = [
  T("The test card number 4111 1111 1111 1112 was rejected,", "said the shop."),
  T("The reference 1234 5678 9012 3456 is printed on the box,", "not a card."),
];

/** Sentences in other languages with the numbers and addresses of their countries (text form only). */
const FOREIGN: ReadonlyArray<{ language: string; build: (g: Generator) => SentencePart[] }> = [
  { language: "es", build: (g) => ["Mi DNI es", g.foreignId("dni"), "y vivo en Madrid."] },
  { language: "es", build: () => ["Vivo en la", { type: "ADDRESS", written: "calle de Alcalá 45", spoken: "" }, "desde hace años."] },
  { language: "es", build: () => ["Me llamo", { type: "PERSON", written: "Carlos García", spoken: "" }, "y trabajo aquí."] },
  { language: "fr", build: (g) => ["Mon numéro de sécurité sociale est", g.foreignId("nir"), "voilà."] },
  { language: "fr", build: () => ["J'habite au", { type: "ADDRESS", written: "12 rue de la Paix", spoken: "" }, "à Paris."] },
  { language: "fr", build: () => ["Je m'appelle", { type: "PERSON", written: "Marie Dubois", spoken: "" }, "et je suis ici."] },
  { language: "de", build: (g) => ["Meine Steuer-ID ist", g.foreignId("steuer"), "laut Bescheid."] },
  { language: "de", build: () => ["Ich wohne in der", { type: "ADDRESS", written: "Hauptstraße 5", spoken: "" }, "in Berlin."] },
  { language: "nl", build: (g) => ["Mijn BSN is", g.foreignId("bsn"), "zoals op de pas."] },
  { language: "pt", build: (g) => ["O meu NIF é", g.foreignId("nif"), "obrigado."] },
  { language: "it", build: () => ["Il mio codice fiscale è", { type: "NATIONAL_ID", written: "RSSMRA85T10A562S", spoken: "" }, "grazie."] },
  { language: "it", build: () => ["Abito in", { type: "ADDRESS", written: "via Roma 10", spoken: "" }, "a Milano."] },
];

export interface PiiSetOptions {
  /** Sentences per entity type for EMAIL, PHONE and CARD_NUMBER (the recall goal's types); the others get `perType * 2/3`. */
  perType: number;
  /** Include the sentences in other languages (written form only). */
  foreign: boolean;
}

/** The labelled set: English sentences per type, plain sentences and near misses, then the other languages'. */
export function piiSentences(opts: PiiSetOptions, seed = 25): LabelledSentence[] {
  const g = new Generator(seed);
  const make: Record<PiiEntityType, () => PlantedEntity> = {
    PERSON: () => g.person(),
    EMAIL: () => g.email(),
    PHONE: () => g.phone(),
    CARD_NUMBER: () => g.card(),
    IBAN: () => g.iban(),
    NATIONAL_ID: () => (g.int(0, 1) === 0 ? g.ssn() : g.nino()),
    ADDRESS: () => g.address(),
    DATE_OF_BIRTH: () => g.dateOfBirth(),
  };
  const out: LabelledSentence[] = [];
  for (const type of Object.keys(TEMPLATES) as PiiEntityType[]) {
    const n = ["EMAIL", "PHONE", "CARD_NUMBER"].includes(type) ? opts.perType : Math.ceil((opts.perType * 2) / 3);
    for (let i = 0; i < n; i++) out.push({ language: "en", parts: TEMPLATES[type][i % TEMPLATES[type].length]!(make[type]()) });
  }
  // Two entities in one sentence: the detectors must keep both apart.
  for (let i = 0; i < Math.ceil(opts.perType / 4); i++)
    out.push({ language: "en", parts: ["Hi, this is", g.person(), "and my number is", g.phone(), "if you need me."] });
  for (const text of PLAIN) out.push({ language: "en", parts: [text] });
  out.push({ language: "en", parts: ["The failed payment used", g.card(false).written, "which the bank declined."] });
  out.push({ language: "en", parts: ["The transfer to", g.iban(false).written, "bounced because the number was wrong."] });
  for (const t of NEAR_MISS)
    out.push({ language: "en", parts: t({ type: "PERSON", written: "", spoken: "" }).filter((p) => typeof p === "string") });
  if (opts.foreign) for (const f of FOREIGN) out.push({ language: f.language, parts: f.build(g) });
  return out;
}

/** A sentence's written text and where its entities are among its words (split at white space). */
export function writtenForm(s: LabelledSentence): { words: string[]; entities: EntityWords[] } {
  const words: string[] = [];
  const entities: EntityWords[] = [];
  for (const p of s.parts) {
    const pieces = (typeof p === "string" ? p : p.written).split(/\s+/).filter(Boolean);
    if (typeof p !== "string") entities.push({ type: p.type, from: words.length, to: words.length + pieces.length });
    words.push(...pieces);
  }
  return { words, entities };
}

export const spokenParts = (s: LabelledSentence): Array<{ text: string; entity: PiiEntityType | null }> =>
  s.parts.map((p) => (typeof p === "string" ? { text: p, entity: null } : { text: p.spoken, entity: p.type }));
