import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Word } from "../../../contracts/transcript";
import { StepFailure } from "../../../contracts/step-failure";
import { runTool } from "../../media/spawn";
import { primaryLanguage } from "./languages";
import type { EngineEnv, EngineTranscript, SpeechEngine, TranscribeOptions } from "./interface";
import { expandTerms, prepareVocabulary, type VocabularyModelConfig, type VocabularyPreparation } from "./pocketsphinx-vocabulary";

/**
 * CMU PocketSphinx 0.8 from Debian (`pocketsphinx`, `pocketsphinx-en-us`): offline, CPU only,
 * US English only. `pocketsphinx_continuous -time yes` prints, per utterance, the hypothesis line
 * and then one `word start end posterior` line per word with times from the start of the file.
 *
 * Vocabulary (TranscribeOptions.vocabulary) is added to a per-job copy of the dictionary, with
 * pronunciations made offline (eSpeak NG, mapped to the model's phones), and boosted as unigrams
 * in a per-job copy of the language model: pocketsphinx-vocabulary.ts.
 */
const MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";

export interface PocketSphinxConfig {
  binary: string;
  hmm: string;
  lm: string;
  dict: string;
  /** eSpeak NG, which spells out vocabulary terms the dictionary does not know. */
  espeakBinary: string;
  /** log10 unigram probability given to each vocabulary term. */
  vocabularyBoostLog10: number;
}

/** Measured by bench/vocabulary.ts (docs/benchmarks.md): the best term recall without raising the rest's WER. */
export const DEFAULT_VOCABULARY_BOOST_LOG10 = -3;

export function pocketSphinxConfigFromEnv(env: EngineEnv): PocketSphinxConfig {
  const dir = env.POCKETSPHINX_MODEL_DIR ?? MODEL_DIR;
  const boost = Number(env.POCKETSPHINX_VOCABULARY_BOOST_LOG10 ?? DEFAULT_VOCABULARY_BOOST_LOG10);
  return {
    binary: env.POCKETSPHINX_BIN ?? "pocketsphinx_continuous",
    hmm: env.POCKETSPHINX_HMM ?? `${dir}/en-us`,
    lm: env.POCKETSPHINX_LM ?? `${dir}/en-us.lm.bin`,
    dict: env.POCKETSPHINX_DICT ?? `${dir}/cmudict-en-us.dict`,
    espeakBinary: env.ESPEAK_NG_BIN ?? "espeak-ng",
    vocabularyBoostLog10: Number.isFinite(boost) && boost < 0 ? boost : DEFAULT_VOCABULARY_BOOST_LOG10,
  };
}

const WORD_LINE = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/;

/** `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++BREATH++` and the like are decoder fillers, not speech. */
function isFiller(token: string): boolean {
  return /^<.*>$/.test(token) || /^\[.*\]$/.test(token) || /^\+\+.*\+\+$/.test(token);
}

/** Parses `-time yes` output into words; alternate pronunciations (`and(2)`) become the base word. */
export function parsePocketSphinxTimes(output: string): Word[] {
  const words: Word[] = [];
  for (const line of output.split("\n")) {
    const m = WORD_LINE.exec(line.trim());
    if (!m?.[1]) continue;
    const token = m[1];
    if (isFiller(token)) continue;
    const word = token.replace(/\(\d+\)$/, "");
    if (!word) continue;
    const start = Number(m[2]);
    const end = Number(m[3]);
    const confidence = Math.min(1, Math.max(0, Number(m[4])));
    words.push({ word, start, end: Math.max(start, end), confidence });
  }
  return words;
}

export class LocalPocketSphinxEngine implements SpeechEngine {
  readonly engine = "local-pocketsphinx";
  readonly model: string;
  readonly inputFormat = "wav";
  /** CPU bound and single threaded per process: the runner's cores are the real cap. */
  readonly maxConcurrency = 64;
  readonly detectsLanguage = false;
  readonly labelsSpeakers = false;
  /** `-remove_noise yes` (the default) runs spectral subtraction on the features. */
  readonly reducesNoise = true;
  readonly languages = ["en"] as const;

  constructor(private readonly config: PocketSphinxConfig) {
    // The Debian package ships the 5prealpha PTM US English acoustic model with the generic en-us LM.
    this.model = "cmusphinx-en-us-ptm-5prealpha";
  }

  supportsLanguage(lang: string): boolean {
    return primaryLanguage(lang) === "en";
  }

  async transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    if (opts.language !== undefined && !this.supportsLanguage(opts.language)) {
      throw new StepFailure(
        "unsupported_language",
        `language ${opts.language} is not supported by the configured engine ${this.engine} (supported: ${this.languages.join(", ")})`,
        false,
      );
    }
    if (!opts.vocabulary?.length) return { language: "en", words: await this.decode(audioPath, this.config, opts.signal) };
    const scratch = opts.workDir ? null : await mkdtemp(join(tmpdir(), "pocketsphinx-vocabulary-"));
    try {
      const prepared = scratch
        ? await prepareVocabulary(opts.vocabulary, this.vocabularyConfig(), scratch, opts.signal)
        : await this.prepare(opts.vocabulary, opts.workDir!, opts.signal);
      const files = prepared.files;
      const words = await this.decode(audioPath, files ? { ...this.config, dict: files.dict, lm: files.lm } : this.config, opts.signal);
      return { language: "en", words: files ? expandTerms(words, files.terms) : words, vocabulary: prepared.use };
    } finally {
      if (scratch) await rm(scratch, { recursive: true, force: true });
    }
  }

  /** One job's chunks share their vocabulary files: made once per work directory and term list. */
  private readonly preparing = new Map<string, Promise<VocabularyPreparation>>();

  private async prepare(terms: readonly string[], workDir: string, signal: AbortSignal): Promise<VocabularyPreparation> {
    const key = `${workDir}\0${terms.join("\n")}`;
    let p = this.preparing.get(key);
    // A work directory emptied since (a retried job reusing its path) gets its files made again.
    const files = p ? (await p).files : null;
    if (files && !(existsSync(files.dict) && existsSync(files.lm))) p = undefined;
    if (!p) {
      p = prepareVocabulary(terms, this.vocabularyConfig(), workDir, signal);
      this.preparing.set(key, p);
      // The engine outlives jobs: only recent preparations are kept, and failed ones are retried.
      if (this.preparing.size > 8) this.preparing.delete(this.preparing.keys().next().value!);
      p.catch(() => this.preparing.delete(key));
    }
    return p;
  }

  private vocabularyConfig(): VocabularyModelConfig {
    return {
      dict: this.config.dict,
      lm: this.config.lm,
      espeak: { binary: this.config.espeakBinary, voice: "en-us" },
      boostLog10: this.config.vocabularyBoostLog10,
    };
  }

  private async decode(audioPath: string, config: PocketSphinxConfig, signal: AbortSignal): Promise<Word[]> {
    const lines: string[] = [];
    const res = await runTool(
      this.config.binary,
      ["-infile", audioPath, "-time", "yes", "-hmm", config.hmm, "-lm", config.lm, "-dict", config.dict, "-logfn", "/dev/null"],
      {
        signal,
        // Only timing lines are kept: the hypothesis lines repeat the same words.
        onStdoutLine: (line) => {
          if (WORD_LINE.test(line.trim())) lines.push(line);
        },
      },
    );
    if (res.code !== 0) {
      const why = res.stderrTail.slice(-2).join(" | ") || "no output";
      throw new StepFailure(
        "processing_failed",
        `${this.engine} (${this.model}): pocketsphinx_continuous exited with ${res.code}: ${why}`,
        true,
      );
    }
    return parsePocketSphinxTimes(lines.join("\n"));
  }
}
