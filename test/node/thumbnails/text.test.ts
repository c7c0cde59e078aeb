import { describe, expect, it } from "vitest";
import type { ClipTranscript } from "../../../contracts/clips";
import { coverPrompt, topicOf } from "../../../gpu-runner/services/thumbnail/text";

const transcript = (texts: string[], language = "en"): ClipTranscript => ({
  textSourceId: "txt_x",
  language,
  durationSec: texts.length * 5,
  segments: texts.map((text, i) => ({ start: i * 5, end: i * 5 + 4, text })),
});

describe("cover topic from the transcript", () => {
  it("keywords are the most repeated content words, stop words and spoken fillers left out", () => {
    const t = transcript([
      "So yeah, the volcano is active.",
      "Um, the volcano erupted and the lava reached the village.",
      "Lava flows are slow.",
    ]);
    expect(topicOf(t).keywords.slice(0, 2)).toEqual(["volcano", "lava"]);
    expect(topicOf(t).keywords).not.toContain("yeah");
  });

  it("uses the stop words of the transcript's language", () => {
    const t = transcript(["El volcán también tiene lava, y el volcán es muy alto.", "La lava llega también al pueblo."], "es");
    const { keywords } = topicOf(t);
    expect(keywords.slice(0, 2)).toEqual(["volcán", "lava"]);
    expect(keywords).not.toContain("también");
  });

  it("the title is the sentence that carries most keywords, capitalised and without its full stop", () => {
    const t = transcript([
      "Welcome back everyone.",
      "the volcano sent lava down to the village.",
      "Thanks for watching the volcano lava show today.",
    ]);
    expect(topicOf(t).title).toMatch(/^(The volcano sent lava down to the village|Thanks for watching the volcano lava show today)$/);
  });

  it("a long sentence is cut to nine words at a content word", () => {
    const t = transcript(["Volcano lava reached the village while everyone in the valley was watching the volcano lava from the hill."]);
    const words = topicOf(t).title.split(" ");
    expect(words.length).toBeLessThanOrEqual(9);
    expect(["the", "in", "was", "while"]).not.toContain(words.at(-1));
  });

  it("without a sentence of two keywords, the title is the top keywords", () => {
    const t = transcript(["Volcano.", "Volcano!", "Lava?"]);
    expect(topicOf(t).title).toBe("Volcano · Lava");
  });

  it("finds the words of Japanese, written without spaces, and leaves its particles out of the keywords", () => {
    const t = transcript(
      [
        "東京の会議で新しい計画を話しました。東京の計画は新しいです。",
        "会議は明日です。新しい計画について、みんなで東京の会議でもう一度話しましょう。",
      ],
      "ja",
    );
    const { keywords, title } = topicOf(t);
    expect(keywords.slice(0, 4).sort()).toEqual(["会議", "新しい", "東京", "計画"].sort());
    for (const particle of ["の", "で", "を", "は", "です"]) expect(keywords).not.toContain(particle);
    expect(title).toMatch(/^東京の会議で新しい計画/u);
    expect(title).not.toContain(" ");
  });

  it("takes the Chinese title from one sentence, cut at its full stop", () => {
    const t = transcript(["我们今天在北京开会，讨论新的计划。北京的计划很重要。", "新的计划明天开始。"], "zh");
    const { keywords, title } = topicOf(t);
    expect(keywords).toEqual(expect.arrayContaining(["北京", "计划"]));
    expect(title).not.toMatch(/[。·]/u);
    expect(title.length).toBeLessThan(20);
  });

  it("the prompt asks for no lettering and names the keywords, varying the style by variant", () => {
    const topic = { title: "Volcano lava", keywords: ["volcano", "lava"] };
    expect(coverPrompt(topic, 0)).toContain("volcano, lava");
    expect(coverPrompt(topic, 0)).toMatch(/no text/);
    expect(coverPrompt(topic, 0)).not.toBe(coverPrompt(topic, 1));
  });
});
