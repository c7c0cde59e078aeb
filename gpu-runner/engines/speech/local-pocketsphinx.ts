import type { Word } from "../../../contracts/transcript";
import { StepFailure } from "../../../contracts/step-failure";
import { runTool } from "../../media/spawn";
import { primaryLanguage } from "./languages";
import type { EngineEnv, EngineTranscript, SpeechEngine, TranscribeOptions } from "./interface";

/**
 * CMU PocketSphinx 0.8 from Debian (`pocketsphinx`, `pocketsphinx-en-us`): offline, CPU only,
 * US English only. `pocketsphinx_continuous -time yes` prints, per utterance, the hypothesis line
 * and then one `word start end posterior` line per word with times from the start of the file.
 */
const MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";

export interface PocketSphinxConfig {
  binary: string;
  hmm: string;
  lm: string;
  dict: string;
}

export function pocketSphinxConfigFromEnv(env: EngineEnv): PocketSphinxConfig {
  const dir = env.POCKETSPHINX_MODEL_DIR ?? MODEL_DIR;
  return {
    binary: env.POCKETSPHINX_BIN ?? "pocketsphinx_continuous",
    hmm: env.POCKETSPHINX_HMM ?? `${dir}/en-us`,
    lm: env.POCKETSPHINX_LM ?? `${dir}/en-us.lm.bin`,
    dict: env.POCKETSPHINX_DICT ?? `${dir}/cmudict-en-us.dict`,
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
    const lines: string[] = [];
    const res = await runTool(
      this.config.binary,
      [
        "-infile",
        audioPath,
        "-time",
        "yes",
        "-hmm",
        this.config.hmm,
        "-lm",
        this.config.lm,
        "-dict",
        this.config.dict,
        "-logfn",
        "/dev/null",
      ],
      {
        signal: opts.signal,
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
    return { language: "en", words: parsePocketSphinxTimes(lines.join("\n")) };
  }
}
