import { SEPARATION_RATE, type SeparateRequest, type SeparationEngine } from "./interface";
import { during, writeStems } from "./stems";

/**
 * Separation by filtering, for runners with no separation model (none runs offline here:
 * ../../../shared/engines.md). Nothing is taken out of the mix, speech is only made quieter:
 *
 * - background: the source with every speech stretch lowered by `duckDb` (ducked, not removed:
 *   music and effects under speech stay, and so does a trace of the original voice);
 * - vocals: the source in the speech band (100 Hz–8 kHz), kept only inside speech stretches
 *   (everything else in that band inside them comes along).
 *
 * One ffmpeg run, file to file (stems.ts): memory stays flat whatever the length.
 */

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
    await writeStems([req.audioPath], graph, req);
  }
}
