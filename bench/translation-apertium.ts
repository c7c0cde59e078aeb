import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createTranslationEngine } from "../gpu-runner/engines/translation/factory";
import type { TranslationEngine } from "../gpu-runner/engines/translation/interface";
import { startApertiumApy } from "../test/support/apertium-apy";
import { longTranscript } from "../test/support/text-fixtures";
import { fmt, machineInfo, summarize, table } from "./lib";

/**
 * Apertium as the `translation` service's engine: 300 English cues of 11 words into Spanish through
 * apertium-apy (a local server on the mark-free modes, requests of at most APY_MAX_CHARS) and
 * through the command (one process per call), beside the bare command on the same text joined as
 * the engine joins it (`apertium -u -f txt eng-spa <file>`, no batching, casing or glossary work):
 * the floor. Each engine is what `createTranslationEngine("apertium", env)` builds, so a script can
 * compare the API path with the same engine called bare.
 *
 *   npx tsx bench/translation-apertium.ts [--segments 300] [--rounds 5]
 */
const { values: args } = parseArgs({ options: { segments: { type: "string", default: "300" }, rounds: { type: "string", default: "5" } } });
const wanted = Math.max(1, Number(args.segments) || 300);
const rounds = Math.max(1, Number(args.rounds) || 5);

/** Cues as subtitles cut speech: 11 words each, sentences running across cues. */
const allWords = longTranscript(wanted * 12)
  .map((s) => s.text)
  .join(" ")
  .split(/\s+/);
const texts = Array.from({ length: wanted }, (_, i) => allWords.slice(i * 11, (i + 1) * 11).join(" "));
const words = texts.join(" ").split(/\s+/).length;
console.log(machineInfo());
console.log(`input: ${texts.length} segments, ${words} words, ${texts.join("").length} characters, en → es (eng-spa)`);

async function measure(name: string, run: () => Promise<unknown>): Promise<string[]> {
  await run(); // warm: apy starts the mode's pipeline on first use
  const ms: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    await run();
    ms.push(performance.now() - t0);
  }
  const p50 = summarize(ms).p50;
  return [name, fmt(p50, 0), fmt(texts.length / (p50 / 1000), 0), fmt(words / (p50 / 1000), 0)];
}

const translate = (engine: TranslationEngine) => () =>
  engine.translate({ source: "en", target: "es", texts, signal: AbortSignal.timeout(120_000) });
const apy = await startApertiumApy();
const rows: string[][] = [];
try {
  rows.push(await measure("apertium-apy engine", translate(createTranslationEngine("apertium", { APERTIUM_APY_URL: apy.url }))));
  rows.push(await measure("apertium command engine", translate(createTranslationEngine("apertium", {}))));
  const dir = mkdtempSync(path.join(tmpdir(), "bench-apertium-"));
  const file = path.join(dir, "in.txt");
  writeFileSync(file, `${texts.join("\n\n")}\n`);
  rows.push(await measure("bare apertium -u -f txt", async () => execFileSync("apertium", ["-u", "-f", "txt", "eng-spa", file])));
  rmSync(dir, { recursive: true, force: true });
} finally {
  await apy.close();
}
console.log(table(["engine", "p50 ms", "segments/s", "words/s"], rows));
