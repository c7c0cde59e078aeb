import { describe, expect, it } from "vitest";
import { APERTIUM_MODES } from "../../../contracts/translation-languages";
import { StepFailure } from "../../../contracts/step-failure";
import { ApertiumApyEngine, apyLangpair, APY_MAX_CHARS } from "../../../gpu-runner/engines/translation/apertium-apy";
import { batches, splitOutput } from "../../../gpu-runner/engines/translation/apertium-batch";
import { ApertiumCliEngine } from "../../../gpu-runner/engines/translation/apertium-cli";
import { withInitialCaseOf } from "../../../gpu-runner/engines/translation/apertium";
import { startApertiumApy } from "../../support/apertium-apy";
import { useFixture } from "../../support/engine-conformance";
import { rejectionOf } from "../../support/rejection";

/**
 * Apertium's own rules, against the real installation: a real apertium-apy server (one for the
 * file) and the real command. The behaviours every backend shares are in translation.conformance.
 */
const RETRY = { attempts: 2, baseDelayMs: 10, maxDelayMs: 50, timeoutMs: 20_000 };
const signal = () => AbortSignal.timeout(60_000);

/** A sentence per source language of the installed modes. */
const SENTENCE: Record<string, string> = {
  en: "The house is big and the garden is small.",
  es: "La casa es grande y el jardín es pequeño.",
  ca: "La casa és gran i el jardí és petit.",
  gl: "A casa é grande e o xardín é pequeno.",
  eo: "La domo estas granda kaj la ĝardeno estas malgranda.",
  hbs: "Kuća je velika i vrt je malen.",
  hr: "Kuća je velika i vrt je malen.",
  sr: "Kuća je velika i vrt je malen.",
  bs: "Kuća je velika i vrt je malen.",
  eu: "Etxea handia da eta lorategia txikia da.",
  is: "Húsið er stórt og garðurinn er lítill.",
  mk: "Куќата е голема и градината е мала.",
};

/** Segments as speech is cut: sentences run across cues, questions, numbers, odd characters, an unknown word. */
const CUES = [
  "Hello everyone and welcome back.",
  "Today we are going to talk about",
  "growing tomatoes on a small balcony",
  "in the city.",
  "Did you know that? I didn't!",
  "It costs about 12 dollars, or 10.50 euros.",
  'Mr. Smith said: "it\'s easy" [laughs]',
  "the",
  "xyzzyq is a word nobody knows",
  "Write to bob@example.com #news",
];

/** CUES for English; for another language its sentence, then the same sentence cut across two cues. */
function cuesIn(language: string): string[] {
  if (language === "en") return CUES;
  const words = SENTENCE[language]!.split(" ");
  return [SENTENCE[language]!, "", words.slice(0, 3).join(" "), words.slice(3).join(" ")];
}

describe("Apertium's installed modes through apertium-apy", () => {
  const apy = useFixture(startApertiumApy);
  const engine = () => new ApertiumApyEngine({ baseUrl: apy().url, retry: RETRY });

  it("lists every mode of APERTIUM_MODES among its pairs", async () => {
    const res = await fetch(`${apy().url}/listPairs`);
    const body = (await res.json()) as { responseData: { sourceLanguage: string; targetLanguage: string }[] };
    const listed = new Set(body.responseData.map((p) => `${p.sourceLanguage}|${p.targetLanguage}`));
    const alpha3: Record<string, string> = { en: "eng", gl: "glg", eo: "epo", eu: "eus" };
    const wanted = APERTIUM_MODES.map((m) => apyLangpair(m.mode).replace(/[a-z]+/g, (c) => (c.length === 2 ? (alpha3[c] ?? c) : c)));
    expect(wanted.filter((p) => !listed.has(p))).toEqual([]);
  });

  it.each(APERTIUM_MODES.map((m) => [m.mode, m.source, m.target] as const))(
    "translates a sentence with %s (%s→%s)",
    async (_mode, source, target) => {
      const [out] = await engine().translate({ source, target, texts: [SENTENCE[source]!], signal: signal() });
      expect(out).not.toBe("");
      expect(out).not.toBe(SENTENCE[source]);
      expect(out).not.toMatch(/(^|\s)[*@#]\p{L}/u);
    },
  );

  it("translates each installed mode's batch exactly as it translates the texts one by one", async () => {
    const differences: string[] = [];
    for (const m of APERTIUM_MODES) {
      const texts = cuesIn(m.source);
      const batched = await engine().translate({ source: m.source, target: m.target, texts, signal: signal() });
      for (const [i, text] of texts.entries()) {
        const [alone] = await engine().translate({ source: m.source, target: m.target, texts: [text], signal: signal() });
        if (alone !== batched[i]) differences.push(`${m.mode} ${i}: ${batched[i]} ≠ ${alone}`);
      }
    }
    expect(differences).toEqual([]);
  });

  it("answers through apy exactly what the command answers, for every installed mode", async () => {
    const differences: string[] = [];
    const cli = new ApertiumCliEngine();
    for (const m of APERTIUM_MODES) {
      const texts = cuesIn(m.source);
      const viaApy = await engine().translate({ source: m.source, target: m.target, texts, signal: signal() });
      const viaCli = await cli.translate({ source: m.source, target: m.target, texts, signal: signal() });
      viaApy.forEach((t, i) => t !== viaCli[i] && differences.push(`${m.mode} ${i}: ${t} ≠ ${viaCli[i]}`));
    }
    expect(differences).toEqual([]);
  });

  it("writes no unknown-word marks, where apy's own modes would leave @ and #", async () => {
    const [out] = await engine().translate({
      source: "en",
      target: "hbs",
      texts: ["Hello world, the xyzzyq house is big."],
      signal: signal(),
    });
    expect(out).toBe("Hello svijet, the xyzzyq dom i velik.");
  });

  it("keeps 300 segments apart in requests of at most APY_MAX_CHARS characters", async () => {
    const texts = Array.from({ length: 300 }, (_, i) => `${CUES[i % CUES.length]} (${i})`);
    const out = await engine().translate({ source: "en", target: "es", texts, signal: signal() });
    expect(out).toHaveLength(300);
    expect(out.map((t) => /\((\d+)\)$/.exec(t)?.[1])).toEqual(texts.map((_, i) => String(i)));
  });

  it("fails retryably, naming engine and mode, when the server is not there", async () => {
    const gone = new ApertiumApyEngine({ baseUrl: "http://127.0.0.1:9", retry: { ...RETRY, attempts: 1 } });
    const f = await rejectionOf(gone.translate({ source: "en", target: "es", texts: ["Hello"], signal: signal() }), StepFailure);
    expect(f).toMatchObject({ retryable: true, message: expect.stringMatching(/^apertium \(apertium:eng-spa\): /) });
  });
});

describe("Apertium through its command", () => {
  it("fails retryably, naming engine and mode, when the command cannot run", async () => {
    const broken = new ApertiumCliEngine({ command: "/nonexistent/apertium" });
    const f = await rejectionOf(broken.translate({ source: "en", target: "es", texts: ["Hello"], signal: signal() }), StepFailure);
    expect(f).toMatchObject({ retryable: true, message: expect.stringMatching(/^apertium \(apertium:eng-spa\): /) });
  });

  it("fails retryably when a run takes longer than its timeout", async () => {
    const slow = new ApertiumCliEngine({ timeoutMs: 1 });
    const f = await rejectionOf(slow.translate({ source: "en", target: "es", texts: ["Hello"], signal: signal() }), StepFailure);
    expect(f).toMatchObject({ retryable: true, message: "apertium (apertium:eng-spa): no output within 1 ms" });
  });
});

describe("batches", () => {
  it("joins non-empty texts, flattened, with a blank line, up to the character limit", () => {
    expect(batches(["a b", "", "c\nd", "  ", "eeee"], 8)).toEqual([
      { indexes: [0, 2], text: "a b\n\nc d" },
      { indexes: [4], text: "eeee" },
    ]);
  });

  it("sends a text longer than the limit alone", () => {
    expect(batches(["x".repeat(APY_MAX_CHARS + 1), "y"], APY_MAX_CHARS).map((b) => b.indexes)).toEqual([[0], [1]]);
  });

  it("splits an output on blank lines, or refuses a count that does not match", () => {
    expect(splitOutput(" Uno.\n\n Dos\n \nTres\n", 3)).toEqual(["Uno.", "Dos", "Tres"]);
    expect(splitOutput("Uno.\n\nDos\n", 3)).toBeUndefined();
  });
});

describe("withInitialCaseOf", () => {
  it("lower-cases an output Apertium capitalised for a cue that continues a sentence", () => {
    expect(withInitialCaseOf("on a small balcony", "Sur malgranda balkono")).toBe("sur malgranda balkono");
  });

  it("capitalises an output whose source starts with a capital", () => {
    expect(withInitialCaseOf("Did you know?", "ĉu vi sciis?")).toBe("Ĉu vi sciis?");
  });

  it("never lower-cases English I or an all-capitals word", () => {
    expect(withInitialCaseOf("yo lo vi", "I saw it")).toBe("I saw it");
    expect(withInitialCaseOf("la OTAN dice", "NATO says")).toBe("NATO says");
  });

  it("leaves an output alone when the source starts with a glossary placeholder", () => {
    expect(withInitialCaseOf("xg1x is here", "Xg1x está aquí")).toBe("Xg1x está aquí");
  });
});
