import { describe, expect, it } from "vitest";
import { loadPassages, loadQuestions, seededRandom } from "../../bench/catalog-lib";
import { termText, tokens } from "../../durable-objects/catalog/tokenizer";
import { fts5Terms } from "../support/fts5-reference";

/**
 * The catalog's tokenizer (durable-objects/catalog/tokenizer.ts) makes the terms SQLite FTS5's
 * `porter unicode61 remove_diacritics 2` made, in the same positions (fts5vocab 'instance' is the
 * reference), and each token's offsets cover its characters in the text.
 */

const ours = (texts: readonly string[]) => texts.map((t) => tokens(t).map((x) => termText(x.term)));
const expectSameTerms = (texts: readonly string[]) => expect(ours(texts)).toEqual(fts5Terms(texts));

/** Every code point above ASCII but the surrogates, in batches of `size`, joined by `glue`. */
function everyCodePoint(glue: string, size = 4096): string[] {
  const texts: string[] = [];
  let batch: string[] = [];
  for (let cp = 0x80; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    batch.push(String.fromCodePoint(cp));
    if (batch.length === size) {
      texts.push(batch.join(glue));
      batch = [];
    }
  }
  return [...texts, batch.join(glue)];
}

describe("the catalog tokenizer", () => {
  it("makes FTS5's terms of the bench corpus, passages and questions", () => {
    expectSameTerms([...loadPassages().map((p) => p.text), ...loadQuestions().map((q) => q.query)]);
  });

  it("splits and folds every code point as FTS5 does, alone and inside words", () => {
    // Alone: token character or separator, and its folded form. Inside a word: what continues a token.
    expectSameTerms(everyCodePoint(" x"));
    expectSameTerms(everyCodePoint("ab", 1024).map((t) => `ab${t}`));
  }, 120_000);

  it.each([
    ["accents on Latin letters only: ø, ß, ﬁ and Greek accents stay", "Crème brûlée, naïve FAÇADE; ø ß ﬁsh Œuvre İstanbul ΆΈ ǅ"],
    ["combining diacritics inside a word, and one starting a word", "cafe\u0301 e\u0301te\u0301 \u0301alone"],
    ["apostrophes and hyphens split", "don't it's rock'n'roll state-of-the-art"],
    ["digits and numbers", "3.14 1,000 2nd 10x ½ ² Ⅻ ٣٤"],
    ["CJK runs and kana", "東京タワーに行きました 한국어 텍스트"],
    ["emoji and symbols", "party 🎉🎉 time ✓ — © ™ 👩‍👩‍👧"],
    ["lone surrogates", "a\ud800b \udc00c"],
    ["Porter's short and edge words", "ies sses ying bed eed agreed plastered motoring sing y yy is as"],
    ["tokens past Porter's 64 bytes are not stemmed", `${"connection".repeat(7)}s ${"é".repeat(40)}ings`],
    ["tokens past FTS5's 32,768 bytes are cut", `${"a".repeat(40_000)} ${"é".repeat(20_000)}`],
  ])("%s", (_, text) => expectSameTerms([text]));

  it("stems like SQLite's Porter on every suffix rule, after any stem", () => {
    const rand = seededRandom(23);
    const stems = [
      "",
      "b",
      "tr",
      "a",
      "oa",
      "y",
      "ey",
      "sy",
      "cr",
      "hop",
      "fil",
      "agr",
      "motor",
      "conn",
      "relat",
      "gener",
      "form",
      "sens",
      "happ",
      "ski",
      "falli",
    ];
    const suffixes =
      "s ss sses ies es ed eed ing at bl iz ational tional enci anci izer logi bli alli entli eli ousli ization ation ator alism iveness fulness ousness aliti iviti biliti icate ative alize iciti ical ful ness al ance ence er ic able ible ant ement ment ent ion sion tion ou ism ate iti ous ive ize e le ll y ly ying ied".split(
        " ",
      );
    const words: string[] = [];
    for (const s of stems) for (const x of suffixes) for (const y of ["", ...suffixes.slice(0, 8)]) words.push(s + x + y);
    for (let i = 0; i < 5000; i++)
      words.push(Array.from({ length: 3 + Math.floor(rand() * 9) }, () => "aeiouybcdlnrstwxzé"[Math.floor(rand() * 18)]).join(""));
    const texts: string[] = [];
    for (let i = 0; i < words.length; i += 500) texts.push(words.slice(i, i + 500).join(" "));
    expectSameTerms(texts);
  });

  it("gives each token the offsets of its characters in the text", () => {
    const text = "Ça  va? Très bien… 東京 e\u0301te\u0301 🎉 𝐀b";
    expect(tokens(text).map((t) => text.slice(t.start, t.end))).toEqual(["Ça", "va", "Très", "bien", "東京", "e\u0301te\u0301", "𝐀b"]);
  });
});
