import { describe, expect, it } from "vitest";
import { asHeading, capitalised, cutAtWordBoundary, dropOpeners } from "../../../gpu-runner/engines/text/text-fit";

/** Whether `cut` ends where a word of `text` ends (the next character is not a letter or digit). */
const endsOnWord = (text: string, cut: string): boolean => !/[\p{L}\p{N}]/u.test(text.charAt(cut.length));

describe("cutAtWordBoundary", () => {
  it("keeps text that fits whole, punctuation included", () => {
    expect(cutAtWordBoundary("  Stir the rice gently.  ", 40)).toBe("Stir the rice gently.");
  });

  it("never cuts inside a word", () => {
    const text = "Keep adding stock for eighteen minutes until the rice is soft but still has a little bite";
    for (let max = 20; max < text.length; max += 7) {
      const cut = cutAtWordBoundary(text, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(text.startsWith(cut)).toBe(true);
      expect(endsOnWord(text, cut)).toBe(true);
    }
  });

  it("prefers a sentence end, then a clause mark, to a bare space", () => {
    expect(cutAtWordBoundary("Chop the onion finely. Then soften it in butter over a medium heat", 40)).toBe("Chop the onion finely.");
    expect(cutAtWordBoundary("Chop the onion finely, then soften it in butter over a medium heat", 40)).toBe("Chop the onion finely");
  });

  it("drops dangling marks and English function words from the end of a cut", () => {
    expect(cutAtWordBoundary("Add the garlic and the sliced mushrooms and fry them until golden", 40)).toBe(
      "Add the garlic and the sliced mushrooms",
    );
  });

  it("cuts between words in a script written without spaces", () => {
    const text = "水を入れて二十分煮込んだら、カレーのルーを溶かします。ご飯にカレーをかけたら完成です。";
    const cut = cutAtWordBoundary(text, 20, "ja");
    expect(cut.length).toBeLessThanOrEqual(20);
    expect(text.startsWith(cut)).toBe(true);
  });

  it("cuts inside a word only when one word is longer than the limit", () => {
    expect(cutAtWordBoundary("a".repeat(50), 10)).toBe("a".repeat(10));
  });
});

describe("headings", () => {
  it("drop spoken openers and the comma after them", () => {
    expect(dropOpeners("So, okay, today we cook risotto.")).toBe("today we cook risotto.");
  });

  it("drop 'well', 'like', 'now' only as openers, that is with a comma after them", () => {
    expect(dropOpeners("Well, like, you need rice.")).toBe("you need rice.");
    expect(dropOpeners("Like this dish, you need rice.")).toBe("Like this dish, you need rice.");
    expect(dropOpeners("Now tip in the rice.")).toBe("Now tip in the rice.");
  });

  it("keep an opener that is the whole sentence", () => {
    expect(dropOpeners("Okay.")).toBe("Okay.");
  });

  it("drop a closing full stop, keep a question mark, and upper-case the first letter", () => {
    expect(asHeading("so today we cook risotto.", 70)).toBe("Today we cook risotto");
    expect(asHeading("Did you know that stirring makes it creamy?", 70)).toBe("Did you know that stirring makes it creamy?");
  });

  it("upper-case the first letter only", () => {
    expect(capitalised("¿sabías que la cebolla?", "es")).toBe("¿Sabías que la cebolla?");
  });
});
