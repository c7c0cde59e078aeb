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

/** `between(t,a,b)+…` over the stretches: non-zero inside speech. */
export function during(stretches: readonly SpeechStretch[]): string {
  return stretches.length === 0 ? "0" : stretches.map((s) => `between(t,${s.start.toFixed(3)},${s.end.toFixed(3)})`).join("+");
}
