import { rm } from "node:fs/promises";
import { TONE_AMPLITUDE, TONE_HZ } from "../../media/redacted-audio";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";

/**
 * A segment read in pieces with the redaction tone where its placeholders were (settings
 * `dubbing.redactedAudio: tone`): each piece synthesised on its own, then joined with a TONE_SEC
 * bleep in every gap, into one WAV that fitting then treats like any other synthesis. The
 * translation does not say how long the redacted words would have taken in the target language,
 * so every bleep has one length.
 */

export const TONE_SEC = 0.4;
/** The pieces are joined at one rate and layout: the engines' own rates differ (eSpeak 22.05 kHz, hosted 24 kHz). */
const RATE = 24_000;

export async function synthesizeWithTones(
  pieces: ReadonlyArray<string | null>,
  speak: (text: string, outPath: string) => Promise<unknown>,
  outPath: string,
  signal: AbortSignal,
): Promise<void> {
  const files: string[] = [];
  try {
    for (const [i, piece] of pieces.entries()) {
      if (piece === null) continue;
      const file = `${outPath}.piece-${i}.wav`;
      files.push(file);
      await speak(piece, file);
    }
    let input = 0;
    const labels: string[] = [];
    const chains = pieces.map((piece, i) => {
      labels.push(`[p${i}]`);
      if (piece !== null) return `[${input++}:a]aformat=sample_fmts=s16:sample_rates=${RATE}:channel_layouts=mono[p${i}]`;
      const tone = `sine=frequency=${TONE_HZ}:sample_rate=${RATE}:duration=${TONE_SEC},volume=${TONE_AMPLITUDE * 8}`;
      return `${tone},aformat=sample_fmts=s16:sample_rates=${RATE}:channel_layouts=mono[p${i}]`;
    });
    const graph = `${chains.join(";")};${labels.join("")}concat=n=${pieces.length}:v=0:a=1[out]`;
    await runToolOk(
      FFMPEG,
      [
        ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error"],
        ...files.flatMap((f) => fileInput(f)),
        ...["-filter_complex", graph, "-map", "[out]", "-c:a", "pcm_s16le", outPath],
      ],
      { signal },
    );
  } finally {
    await Promise.all(files.map((f) => rm(f, { force: true })));
  }
}
