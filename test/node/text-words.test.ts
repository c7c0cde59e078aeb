import { describe, expect, it } from "vitest";
import { columns, endsSentence, joinWords, lineUnits } from "../../contracts/text-words";

describe("joining transcript words", () => {
  it("puts one space between words of scripts that space their words", () => {
    expect(joinWords(["Hello", " there", "Привет", "안녕하세요"])).toBe("Hello there Привет 안녕하세요");
  });

  it("puts nothing between words of Chinese, Japanese or Thai", () => {
    expect(joinWords(["今日", "は", "東京", "で"])).toBe("今日は東京で");
    expect(joinWords(["我们", "今天"])).toBe("我们今天");
    expect(joinWords(["ภาษา", "ไทย"])).toBe("ภาษาไทย");
  });

  it("closes up punctuation to the word before it, Latin and CJK alike", () => {
    expect(joinWords(["Hello", ",", "you", "!"])).toBe("Hello, you!");
    expect(joinWords(["会議", "を", "開きました", "。", "次", "に"])).toBe("会議を開きました。次に");
    expect(joinWords(["「", "新しい", "」", "会議"])).toBe("「新しい」会議");
  });

  it("reads a word's last character whole when it is outside the BMP (an emoji, a rare ideograph)", () => {
    expect(joinWords(["nice", "😀", "again"])).toBe("nice 😀 again");
    expect(joinWords(["𠮷", "野", "家"])).toBe("𠮷野家");
  });

  it("keeps a space where a CJK word meets a Latin one", () => {
    expect(joinWords(["GPU", "を", "使う"])).toBe("GPU を使う");
  });
});

describe("line width", () => {
  it("counts a CJK or Hangul character as two columns and a Latin one as one", () => {
    expect(columns("abc")).toBe(3);
    expect(columns("日本語")).toBe(6);
    expect(columns("한국")).toBe(4);
    expect(columns("GPU を")).toBe(6);
  });
});

describe("sentence ends", () => {
  it("are Latin or CJK full stops, question and exclamation marks, closing quotes allowed after them", () => {
    for (const w of ["there.", "why?", "yes!", "ました。", "ですか？", "“done.”", "でした。」"]) expect(endsSentence(w), w).toBe(true);
    for (const w of ["Hello", "Mr", "では、", "3.5x"]) expect(endsSentence(w), w).toBe(false);
  });
});

describe("line break opportunities", () => {
  it("are the spaces in spaced text, with punctuation kept on its word", () => {
    expect(lineUnits("Hello, big world!")).toEqual([
      { text: "Hello,", spaceBefore: false },
      { text: "big", spaceBefore: true },
      { text: "world!", spaceBefore: true },
    ]);
  });

  it("are between the words of Japanese, with brackets and stops kept on the word inside them", () => {
    const units = lineUnits("東京で「新しい」会議を開きました。");
    expect(units.map((u) => u.text).join("")).toBe("東京で「新しい」会議を開きました。");
    expect(units.length).toBeGreaterThan(3);
    expect(units.every((u) => !u.spaceBefore)).toBe(true);
    for (const u of units.slice(1)) expect(u.text).not.toMatch(/^[、。」]/u);
    for (const u of units) expect(u.text).not.toMatch(/「$/u);
  });
});
