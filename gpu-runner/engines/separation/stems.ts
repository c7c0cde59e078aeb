import { rm, writeFile } from "node:fs/promises";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";
import type { SeparateRequest, SpeechStretch } from "./interface";

/**
 * What every separation backend ends with: one ffmpeg run over its inputs and a filter graph that
 * labels `[background]` and `[vocals]`, written as the request's two FLAC stems. The graph goes to a
 * script next to the outputs, since the speech stretches of a long video are thousands.
 */
const FF_BASE = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

export async function writeStems(inputs: readonly string[], graph: string, req: SeparateRequest): Promise<void> {
  const script = `${req.backgroundOut}.filter.txt`;
  await writeFile(script, graph);
  try {
    await runToolOk(
      FFMPEG,
      [
        ...FF_BASE,
        ...inputs.flatMap((i) => fileInput(i)),
        "-filter_complex_script",
        script,
        ...["-map", "[background]", "-c:a", "flac", req.backgroundOut],
        ...["-map", "[vocals]", "-c:a", "flac", req.vocalsOut],
      ],
      { signal: req.signal },
    );
  } finally {
    await rm(script, { force: true });
  }
}

/**
 * `between(t,a,b)+…` over the stretches: non-zero inside speech. Summed as a balanced tree of
 * parenthesised halves: ffmpeg's expression evaluator refuses a flat chain of 100 terms or more (a
 * ten-minute conversation has more stretches than that), while a balanced one is only log2(n) deep.
 */
export function during(stretches: readonly SpeechStretch[]): string {
  const terms = stretches.map((s) => `between(t,${s.start.toFixed(3)},${s.end.toFixed(3)})`);
  const sum = (from: number, to: number): string => {
    if (to - from === 1) return terms[from]!;
    const mid = (from + to) >> 1;
    return `(${sum(from, mid)}+${sum(mid, to)})`;
  };
  return terms.length === 0 ? "0" : sum(0, terms.length);
}
