import { rm, writeFile } from "node:fs/promises";
import { runToolOk } from "../../media/spawn";
import { SEPARATION_RATE, type SeparateRequest, type SeparationEngine, type SpeechStretch } from "./interface";

/**
 * Separation by filtering, for runners with no separation model (none runs offline here:
 * ../../../shared/engines.md). Nothing is taken out of the mix, speech is only made quieter:
 *
 * - background: the source with every speech stretch lowered by `duckDb` (ducked, not removed:
 *   music and effects under speech stay, and so does a trace of the original voice);
 * - vocals: the source in the speech band (100 Hz–8 kHz), kept only inside speech stretches
 *   (everything else in that band inside them comes along).
 *
 * One ffmpeg run, file to file: memory stays flat whatever the length. The stretches go to a
 * filter script next to the outputs, since a long video has thousands.
 */
const FFMPEG = process.env.FFMPEG_PATH ?? "ffmpeg";
const FF_BASE = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

export const LOCAL_FILTERS_METHOD = "speech ducked in the background; vocals band-passed and gated to speech";

export class LocalFiltersSeparationEngine implements SeparationEngine {
  readonly engine = "ffmpeg-filters";
  readonly method = LOCAL_FILTERS_METHOD;

  async separate(req: SeparateRequest): Promise<void> {
    const speech = during(req.speech);
    const graph = [
      `[0:a]aresample=${SEPARATION_RATE},asplit=2[a][b]`,
      `[a]volume=volume='if(${speech},${Math.pow(10, -req.duckDb / 20).toFixed(5)},1)':eval=frame[background]`,
      `[b]highpass=f=100,lowpass=f=8000,volume=volume='if(${speech},1,0)':eval=frame[vocals]`,
    ].join(";\n");
    const script = `${req.backgroundOut}.filter.txt`;
    await writeFile(script, graph);
    try {
      await runToolOk(
        FFMPEG,
        [
          ...FF_BASE,
          "-i",
          req.audioPath,
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
}

/** `between(t,a,b)+…` over the stretches: non-zero inside speech. */
export function during(stretches: readonly SpeechStretch[]): string {
  return stretches.length === 0 ? "0" : stretches.map((s) => `between(t,${s.start.toFixed(3)},${s.end.toFixed(3)})`).join("+");
}
