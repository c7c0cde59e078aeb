import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { createSpeechEngine } from "../../gpu-runner/engines/speech/factory";
import { pocketSphinxConfigFromEnv } from "../../gpu-runner/engines/speech/local-pocketsphinx";
import { addUnigrams, TrieLmError, trieWords, unigramLog10 } from "../../gpu-runner/engines/speech/pocketsphinx-lm";
import { placeholder, prepareVocabulary, type VocabularyModelConfig } from "../../gpu-runner/engines/speech/pocketsphinx-vocabulary";
import { CMU_PHONES } from "../../gpu-runner/engines/speech/pronunciation";
import { LIBRIVOX_0880 } from "../support/media-fixtures";
import { sentenceWav, VOCABULARY_SENTENCES } from "../support/vocabulary-set";

/**
 * The local engine's vocabulary with the real tools: eSpeak NG's pronunciations, the stock
 * dictionary and language model, and PocketSphinx decoding a sentence of the vocabulary set.
 */
const stock = pocketSphinxConfigFromEnv({});
const config: VocabularyModelConfig = {
  dict: stock.dict,
  lm: stock.lm,
  espeak: { binary: "espeak-ng", voice: "en-us" },
  boostLog10: -4,
};
const signal = () => AbortSignal.timeout(30_000);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "vocabulary-test-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What every file the preparation wrote says: text files whole, the model its word list (the rest is binary numbers). */
async function writtenFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const bytes = await readFile(path.join(entry.parentPath, entry.name));
    out.push(entry.name.endsWith(".lm.bin") ? trieWords(bytes).join("\n") : bytes.toString("utf8"));
  }
  return out;
}

const dictLines = async (file: string) => (await readFile(file, "utf8")).split("\n");

describe("PocketSphinx vocabulary files", () => {
  it("adds a term absent from the dictionary under a placeholder, with CMU phones from eSpeak NG", async () => {
    const { files, use } = await prepareVocabulary(["Kubernetes"], config, dir, signal());
    // espeak-ng -q --ipa -v en-us: kjˈuːbɚnˌiːts
    expect(await dictLines(files!.dict)).toContain(`${placeholder(0)} K Y UW B ER N IY T S`);
    expect(files!.terms.get(placeholder(0))).toEqual(["Kubernetes"]);
    expect(use).toEqual({ method: "dictionary_unigram_boost", termsUsed: 1, termsDropped: 0, dropped: {} });
  });

  it("keeps the dictionary's own pronunciations for words it knows, one entry per term", async () => {
    const { files } = await prepareVocabulary(["Nguyen", "Lars Lindqvist"], config, dir, signal());
    const lines = await dictLines(files!.dict);
    expect(lines).toContain(`${placeholder(0)} N UW Y EH N`);
    expect(lines.find((l) => l.startsWith(`${placeholder(1)} `))).toMatch(new RegExp(`^${placeholder(1)} L AA R Z L IH N`));
  });

  it("keeps the stock dictionary's entries in the job's copy", async () => {
    const { files } = await prepareVocabulary(["Kubernetes"], config, dir, signal());
    const lines = await dictLines(files!.dict);
    expect(lines).toEqual(expect.arrayContaining(["hello HH AH L OW", "python P AY TH AA N"]));
  });

  it("adds every term to the language model as a unigram of the configured probability", async () => {
    const { files } = await prepareVocabulary(["Kubernetes", "Okonkwo"], config, dir, signal());
    const lm = await readFile(files!.lm);
    const words = trieWords(lm);
    expect(words.slice(-2)).toEqual([placeholder(0), placeholder(1)]);
    expect(unigramLog10(lm, words.length - 1)).toBeCloseTo(-4, 4);
  });

  it("never writes a hostile term into the dictionary, the model or eSpeak's input, counting it as unsafe", async () => {
    const hostile = ["$(touch pwned)", "`id`", "-w /tmp/x", "a;b", "<s>", "x\u0000y"];
    const { files, use } = await prepareVocabulary([...hostile, "Okonkwo"], config, dir, signal());
    expect(use).toMatchObject({ termsUsed: 1, termsDropped: hostile.length, dropped: { unsafe_characters: hostile.length } });
    const written = await writtenFiles();
    for (const bad of ["touch pwned", "`id`", "/tmp/x", "a;b", "x\u0000y"]) {
      for (const content of written) expect(content).not.toContain(bad);
    }
    expect(files!.terms.size).toBe(1);
  });

  it("adds only placeholder lines of CMU phones to the dictionary, whatever a term's line breaks", async () => {
    const stockLines = (await dictLines(stock.dict)).filter(Boolean).length;
    const { files } = await prepareVocabulary(["Kubernetes\nhello HH AH L OW", "Okonkwo"], config, dir, signal());
    const added = (await dictLines(files!.dict)).filter(Boolean).slice(stockLines);
    expect(added.length).toBeGreaterThanOrEqual(2);
    for (const line of added) {
      const [name, ...phones] = line.split(" ");
      expect(name).toMatch(/^vocabterm\d{3}(\(\d+\))?$/);
      for (const p of phones) expect(CMU_PHONES).toContain(p);
    }
  });

  it("drops a term with a word eSpeak NG's English rules cannot read as no_pronunciation", async () => {
    const { files, use } = await prepareVocabulary(["東京", "Okonkwo"], config, dir, signal());
    expect(use).toEqual({ method: "dictionary_unigram_boost", termsUsed: 1, termsDropped: 1, dropped: { no_pronunciation: 1 } });
    expect([...files!.terms.values()]).toEqual([["Okonkwo"]]);
  });

  it("still adds the terms the dictionary knows when eSpeak NG is missing", async () => {
    const { use } = await prepareVocabulary(
      ["Nguyen", "Okonkwo"],
      { ...config, espeak: { binary: "/nonexistent/espeak-ng", voice: "en-us" } },
      dir,
      signal(),
    );
    expect(use).toEqual({ method: "dictionary_unigram_boost", termsUsed: 1, termsDropped: 1, dropped: { no_pronunciation: 1 } });
  });

  it("refuses a language model that is not in the trie format, naming why", async () => {
    const arpa = path.join(dir, "model.lm");
    await writeFile(arpa, "\\data\\\nngram 1=1\n\n\\1-grams:\n-1.0 hello\n\n\\end\\\n");
    expect(() => addUnigrams(Buffer.from("\\data\\\n"), [{ word: "x", log10Prob: -4 }])).toThrow(TrieLmError);
    const { files, use } = await prepareVocabulary(["Okonkwo"], { ...config, lm: arpa }, dir, signal());
    expect(files).toBeNull();
    expect(use).toEqual({ method: "dictionary_unigram_boost", termsUsed: 0, termsDropped: 1, dropped: { language_model_unsupported: 1 } });
  });
});

describe("local PocketSphinx engine with a vocabulary", () => {
  const engine = () => createSpeechEngine(DEFAULT_SETTINGS.transcription, {});
  // "Our team moved the billing service to Kubernetes last spring." (Festival's slt voice)
  const sentence = 0;

  it("makes a job's vocabulary files once for all the chunks it transcribes", async () => {
    const e = engine();
    const opts = { signal: signal(), workDir: dir, vocabulary: ["Kubernetes"] };
    await Promise.all([e.transcribe(LIBRIVOX_0880, opts), e.transcribe(LIBRIVOX_0880, opts)]);
    const made = (await readdir(dir)).filter((f) => f.startsWith("vocabulary-"));
    expect(made).toHaveLength(1);
    expect((await readdir(path.join(dir, made[0]!))).sort()).toEqual(["terms.txt", "vocabulary.dict", "vocabulary.lm.bin"]);
  });

  it("makes the files again when the work directory was emptied since", async () => {
    const e = engine();
    const opts = { signal: signal(), workDir: dir, vocabulary: ["Kubernetes"] };
    await e.transcribe(LIBRIVOX_0880, opts);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir);
    const r = await e.transcribe(LIBRIVOX_0880, opts);
    expect(r.vocabulary).toMatchObject({ termsUsed: 1 });
  });

  it("recognises a term absent from its dictionary only when the vocabulary names it", async () => {
    expect(VOCABULARY_SENTENCES[sentence]!.terms).toEqual(["Kubernetes"]);
    const wav = await sentenceWav(sentence);
    const without = await engine().transcribe(wav, { signal: signal() });
    const withTerms = await engine().transcribe(wav, { signal: signal(), workDir: dir, vocabulary: ["Kubernetes", "Okonkwo"] });
    expect(without.words.map((w) => w.word)).not.toContain("Kubernetes");
    expect(withTerms.words.map((w) => w.word)).toContain("Kubernetes");
  });
});
