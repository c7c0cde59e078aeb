import { describe, expect, it } from "vitest";
import { VOCABULARY_MAX_TERMS } from "../../../contracts/request-fields";
import { expandTerms, placeholder } from "../../../gpu-runner/engines/speech/pocketsphinx-vocabulary";
import { ipaToCmu, termPronunciations } from "../../../gpu-runner/engines/speech/pronunciation";
import {
  boundedTerms,
  estimateWhisperTokens,
  safeTerms,
  VocabularyTally,
  WHISPER_PROMPT_TOKENS,
  whisperPrompt,
} from "../../../gpu-runner/engines/speech/vocabulary";

/** How terms are bounded, filtered and turned into prompts or pronunciations (the engines' own tests send them). */

describe("bounding a vocabulary", () => {
  it("keeps the first VOCABULARY_MAX_TERMS distinct terms and counts the rest as over_limit", () => {
    const tally = new VocabularyTally();
    const terms = Array.from({ length: VOCABULARY_MAX_TERMS + 5 }, (_, i) => `Term${i}`);
    expect(boundedTerms(terms, tally)).toHaveLength(VOCABULARY_MAX_TERMS);
    expect(tally.use("prompt", VOCABULARY_MAX_TERMS)).toMatchObject({ termsDropped: 5, dropped: { over_limit: 5 } });
  });

  it("drops case-insensitive duplicates without counting them", () => {
    const tally = new VocabularyTally();
    expect(boundedTerms(["Kubernetes", " kubernetes ", "Okta"], tally)).toEqual(["Kubernetes", "Okta"]);
    expect(tally.use("prompt", 2).termsDropped).toBe(0);
  });
});

describe("terms safe for local files and tools", () => {
  it("keeps letters, digits, apostrophes, hyphens and spaces, whatever the script", () => {
    const tally = new VocabularyTally();
    expect(safeTerms(["O’Brien", "Wi-Fi 6", "Zoë Núñez", "Ōtani"], tally)).toEqual(["O'Brien", "Wi-Fi 6", "Zoë Núñez", "Ōtani"]);
    expect(tally.use("dictionary_unigram_boost", 4).termsDropped).toBe(0);
  });

  it("drops a term with any other character, a leading hyphen or a line break, counting it as unsafe_characters", () => {
    const tally = new VocabularyTally();
    const hostile = ["$(reboot)", "-v", "Kubernetes\nvocabterm000 AA", "a;b", "../../etc/passwd", "C++", "tab\there", "<s>", "--help"];
    expect(safeTerms(hostile, tally)).toEqual([]);
    expect(tally.use("dictionary_unigram_boost", 0)).toMatchObject({
      termsDropped: hostile.length,
      dropped: { unsafe_characters: hostile.length },
    });
  });
});

describe("Whisper prompts", () => {
  it("lists the terms comma-separated in the caller's order", () => {
    expect(whisperPrompt(["Okonkwo", "Kubernetes"], "prompt")).toEqual({
      prompt: "Okonkwo, Kubernetes.",
      use: { method: "prompt", termsUsed: 2, termsDropped: 0, dropped: {} },
    });
  });

  it("stays within Whisper's prompt window, dropping the terms that do not fit as prompt_limit", () => {
    const terms = Array.from({ length: VOCABULARY_MAX_TERMS }, (_, i) => `Productname${i}`);
    const { prompt, use } = whisperPrompt(terms, "initial_prompt");
    expect(estimateWhisperTokens(prompt!)).toBeLessThanOrEqual(WHISPER_PROMPT_TOKENS);
    expect(use.termsUsed).toBeGreaterThan(0);
    expect(use).toMatchObject({
      termsDropped: VOCABULARY_MAX_TERMS - use.termsUsed,
      dropped: { prompt_limit: VOCABULARY_MAX_TERMS - use.termsUsed },
    });
    expect(prompt!.startsWith("Productname0, Productname1,")).toBe(true);
  });

  it("counts characters outside ASCII as two tokens each", () => {
    expect(estimateWhisperTokens("abc")).toBe(1);
    expect(estimateWhisperTokens("東京")).toBe(4);
  });
});

describe("pronunciations for PocketSphinx", () => {
  it("maps eSpeak NG's IPA to CMU phones, dropping stress and length marks", () => {
    // espeak-ng -q --ipa -v en-us "Kubernetes" / "Okonkwo"
    expect(ipaToCmu("kjˈuːbɚnˌiːts")).toEqual(["K", "Y", "UW", "B", "ER", "N", "IY", "T", "S"]);
    expect(ipaToCmu("ɑːkˈɔŋkwoʊ")).toEqual(["AA", "K", "AO", "NG", "K", "W", "OW"]);
  });

  it("maps diphthongs and affricates to one phone", () => {
    expect(ipaToCmu("dʒˈaɪtʃeɪ")).toEqual(["JH", "AY", "CH", "EY"]);
  });

  it("keeps the dictionary's pronunciations for known words and uses eSpeak's for unknown ones", () => {
    const dict = new Map([["lars", [["L", "AA", "R", "Z"]]]]);
    const espeak = new Map([["lindqvist", ["L", "IH", "N", "D", "K", "V", "IH", "S", "T"]]]);
    expect(termPronunciations(["Lars", "Lindqvist"], dict, espeak)).toEqual([
      ["L", "AA", "R", "Z", "L", "IH", "N", "D", "K", "V", "IH", "S", "T"],
    ]);
  });

  it("gives a term no pronunciation when one of its words has none", () => {
    expect(termPronunciations(["Lars", "Unknown"], new Map([["lars", [["L", "AA", "R", "Z"]]]]), new Map())).toEqual([]);
  });

  it("replaces a recognised placeholder with the term's words, sharing its time by their length", () => {
    const words = [
      { word: "met", start: 0, end: 0.5, confidence: 0.9 },
      { word: placeholder(0), start: 1, end: 2, confidence: 0.8 },
    ];
    expect(expandTerms(words, new Map([[placeholder(0), ["Priya", "Ramaswamy"]]]))).toEqual([
      words[0],
      { word: "Priya", start: 1, end: 1 + 5 / 14, confidence: 0.8 },
      { word: "Ramaswamy", start: 1 + 5 / 14, end: 2, confidence: 0.8 },
    ]);
  });
});
