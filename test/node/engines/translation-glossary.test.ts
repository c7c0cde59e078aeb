import { describe, expect, it } from "vitest";
import { protect, restore } from "../../../gpu-runner/engines/translation/glossary";
import { ApertiumCliEngine } from "../../../gpu-runner/engines/translation/apertium-cli";
import type { GlossaryDrop, GlossaryEntry } from "../../../gpu-runner/engines/translation/interface";

/** How glossary terms are protected through translation (glossary.ts), with real Apertium where an engine is involved. */
const GLOSSARY: GlossaryEntry[] = [
  { term: "New York", preferred: "Nueva York" },
  { term: "New York City", preferred: "NYC" },
  { term: "kubernetes", preferred: "Kubernetes" },
];

const round = (texts: string[], translate: (t: string) => string, style: "placeholder" | "instruction") => {
  const prot = protect(texts, GLOSSARY, style);
  return restore(prot.texts.map(translate), prot, GLOSSARY, style);
};

describe("placeholder glossary", () => {
  it("replaces each term, case-insensitively on word boundaries, by a token, the longest term first", () => {
    const prot = protect(["I love new york city and New York.", "Kubernetes pods; kubernetesish stays."], GLOSSARY, "placeholder");
    expect(prot.texts).toEqual(["I love Xg1x and Xg3x.", "Xg2x pods; kubernetesish stays."]);
    expect(prot.used.map((e) => e.term)).toEqual(["New York City", "kubernetes", "New York"]);
  });

  it("writes the preferred spelling over each token, whatever case the engine gave it", () => {
    expect(round(["New York is big."], (t) => t.replace("Xg3x", "xG3X"), "placeholder")).toEqual({
      texts: ["Nueva York is big."],
      dropped: [],
    });
  });

  it("reports each occurrence the engine dropped, keeping the translation", () => {
    expect(round(["Hello", "kubernetes and kubernetes"], (t) => t.replace(/Xg2x/, "k8s"), "placeholder")).toEqual({
      texts: ["Hello", "k8s and Kubernetes"],
      dropped: [{ index: 1, term: "kubernetes", preferred: "Kubernetes" }],
    });
  });

  it("leaves a token it did not insert alone", () => {
    expect(round(["plain text"], () => "texto Xg2x", "placeholder").texts).toEqual(["texto Xg2x"]);
  });

  it("carries terms through real Apertium in every sentence position", async () => {
    const drops: GlossaryDrop[] = [];
    const out = await new ApertiumCliEngine().translate({
      source: "en",
      target: "es",
      texts: ["Kubernetes runs here.", "We moved to New York City last year", "and we love new york."],
      glossary: GLOSSARY,
      signal: AbortSignal.timeout(30_000),
      onGlossaryDropped: (d) => drops.push(d),
    });
    expect(out[0]).toMatch(/^Kubernetes /);
    expect(out[1]).toContain("NYC");
    expect(out[2]).toContain("Nueva York");
    expect(drops).toEqual([]);
  });
});

describe("instruction glossary", () => {
  it("sends the texts unchanged and lists only the terms they contain", () => {
    const prot = protect(["We use kubernetes in New York City."], GLOSSARY, "instruction");
    expect(prot.texts).toEqual(["We use kubernetes in New York City."]);
    expect(prot.used.map((e) => e.term)).toEqual(["New York City", "kubernetes"]);
  });

  it("writes the preferred spelling over the term or another casing of it", () => {
    expect(round(["kubernetes here", "New York"], (t) => (t.startsWith("kub") ? "KUBERNETES aquí" : "New York"), "instruction")).toEqual({
      texts: ["Kubernetes aquí", "Nueva York"],
      dropped: [],
    });
  });

  it("reports a term the model translated away", () => {
    expect(round(["I love New York."], () => "Me encanta la gran manzana.", "instruction").dropped).toEqual([
      { index: 0, term: "New York", preferred: "Nueva York" },
    ]);
  });
});
