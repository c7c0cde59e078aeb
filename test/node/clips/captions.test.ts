import { describe, expect, it } from "vitest";
import { buildAss, captionStyleFor, escapeAss, groupCaptions } from "../../../gpu-runner/services/clip-generation/captions";
import { columns } from "../../../contracts/text-words";

const words = "the quick brown fox jumps over the lazy dog and then it runs far away into the woods".split(" ").map((w, i) => ({
  word: w,
  start: i * 0.4 + (i >= 9 ? 1 : 0),
  end: i * 0.4 + 0.3 + (i >= 9 ? 1 : 0),
}));

describe("word captions", () => {
  it("have at most two lines of at most lineChars characters", () => {
    for (const c of groupCaptions(words, 18)) {
      expect(c.lines.length).toBeLessThanOrEqual(2);
      for (const l of c.lines) expect(l.map((w) => w.word).join(" ").length).toBeLessThanOrEqual(18);
    }
  });

  it("break at a pause", () => {
    const captions = groupCaptions(words, 40);
    expect(captions.some((c) => c.words[0]!.word === "and")).toBe(true);
  });

  it("highlight each word exactly from its start until the next word starts", () => {
    const ass = buildAss(words.slice(0, 3), captionStyleFor(1080, 1920));
    const events = ass.split("\n").filter((l) => l.startsWith("Dialogue:"));
    expect(events).toHaveLength(3);
    expect(events[1]).toMatch(/^Dialogue: 0,0:00:00\.40,0:00:00\.80,Caption,,0,0,0,,the \{\\c&H0033D7FF&\}quick\{\\c&H00FFFFFF&\} brown$/);
  });

  it("escape ASS override characters in words", () => {
    const ass = buildAss([{ word: "{bold}", start: 0, end: 0.5 }], captionStyleFor(1080, 1080));
    expect(ass).toContain("\\{bold\\}");
  });

  it("never let a word start a line of the .ass file: \\r, \\n and other breaks become spaces", () => {
    const hostile = "ok\rDialogue: 0,0:00:00.00,9:00:00.00,Caption,,0,0,0,,injected\nStyle: X\u2028y\u0085z\u0000";
    const ass = buildAss([{ word: hostile, start: 0, end: 0.5 }], captionStyleFor(1080, 1080));
    expect(ass).not.toMatch(/[\r\u0000\u0085\u2028]/);
    // libass ends a line at \r as well as \n.
    const lines = ass.split(/\r\n|\r|\n/);
    expect(lines.filter((l) => l.startsWith("Dialogue:"))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith("Style:"))).toHaveLength(1);
  });

  it("let no backslash in a word form a libass sequence (\\N, \\n, \\h, \\{): each is followed by a word joiner", () => {
    expect(escapeAss("a\\Nb")).toBe("a\\\u2060Nb");
    expect(escapeAss("\\h\\n")).toBe("\\\u2060h\\\u2060n");
    // A word ending in a backslash cannot escape the brace of the highlight that follows it.
    expect(escapeAss("x\\") + "{").toBe("x\\\u2060{");
    expect(escapeAss("{\\b1}")).toBe("\\{\\\u2060b1\\}");
  });

  it("use Noto Sans at the output's resolution", () => {
    const ass = buildAss(words, captionStyleFor(1080, 1920));
    expect(ass).toContain("PlayResX: 1080");
    expect(ass).toContain("PlayResY: 1920");
    expect(ass).toMatch(/Style: Caption,Noto Sans,\d+/);
  });

  it("write Japanese without spaces between words and fit its full-width characters in the line", () => {
    const ja = "今日 は 東京 で 新しい 会議 を 開き ました 。 みんな で 新しい 計画 に ついて 話し 合い ました 。".split(" ");
    const jaWords = ja.map((word, i) => ({ word, start: i * 0.3, end: i * 0.3 + 0.25 }));
    const style = captionStyleFor(1080, 1920);
    const captions = groupCaptions(jaWords, style.lineChars);
    for (const c of captions) for (const l of c.lines) expect(columns(l.map((w) => w.word).join(""))).toBeLessThanOrEqual(style.lineChars);
    expect(captions[0]!.words.at(-1)!.word).toBe("。");
    const first = buildAss(jaWords, style)
      .split("\n")
      .find((l) => l.startsWith("Dialogue:"))!;
    expect(first.replace(/\{[^}]*\}/g, "")).toMatch(/,,今日は東京で(新しい|\\N)/u);
    expect(first).not.toMatch(/\p{Script=Han} \p{Script=Hiragana}|\p{Script=Hiragana} \p{Script=Han}/u);
  });
});

describe("word captions of a clip where two people talk", () => {
  const said = (text: string, speaker: string, from: number) =>
    text.split(" ").map((word, i) => ({ word, start: from + i * 0.3, end: from + i * 0.3 + 0.25, speaker }));
  // No pause between the turns: only the speaker change can end the first caption.
  const dialogue = [...said("so what happened", "SPEAKER_00", 0), ...said("we found it", "SPEAKER_01", 0.9)];
  const texts = (ass: string) => ass.split("\n").filter((l) => l.startsWith("Dialogue:"));

  it("end a caption at a change of speaker", () => {
    expect(groupCaptions(dialogue, 40).map((c) => c.words.map((w) => w.word).join(" "))).toEqual(["so what happened", "we found it"]);
  });

  it("name the speaker above the first caption of each turn, with the name a person gave", () => {
    const events = texts(buildAss(dialogue, captionStyleFor(1080, 1920), { SPEAKER_00: "Ada", SPEAKER_01: "SPEAKER_01" }));
    expect(events[0]).toContain("}Ada{\\r}\\N");
    expect(events[3]).toContain("}SPEAKER_01{\\r}\\N");
  });

  it("name no one in a clip of a single voice", () => {
    const ass = buildAss(said("just me talking", "SPEAKER_00", 0), captionStyleFor(1080, 1920), { SPEAKER_00: "Ada" });
    expect(ass).not.toContain("Ada");
  });

  it("escape a hostile speaker name as they escape words", () => {
    const events = texts(buildAss(dialogue, captionStyleFor(1080, 1920), { SPEAKER_00: "{\\pos(0,0)}Eve" }));
    expect(events[0]).toContain("\\{\\\u2060pos(0,0)\\}Eve");
  });
});
