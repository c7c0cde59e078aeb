/**
 * The colour each speaker has on the console's transcript page. A fixed palette, picked by the
 * label's number (SPEAKER_03 → the fourth colour, wrapping after eight), so a speaker keeps its colour
 * across reloads, renames and other speakers' merges. Every colour is text-safe: at least 4.5:1
 * (WCAG AA for body text) on the page's white, on the panel grey and on the played segment's blue
 * (test/node/console-speaker-palette.test.ts). Colour is never the only cue: the name is always
 * written beside it. The page policy forbids inline styles, so the colours are classes.
 */
export const SPEAKER_PALETTE = [
  "#1f5fbf", // blue
  "#b3261e", // red
  "#1a6b35", // green
  "#6a3fb5", // purple
  "#9a4a00", // brown
  "#006374", // teal
  "#a3155f", // magenta
  "#5a6400", // olive
] as const;

/** The backgrounds a speaker's name is drawn on (styles.ts: --bg, --panel, `ol.segments li.active`). */
export const SPEAKER_BACKGROUNDS = ["#ffffff", "#f4f5f7", "#e3edff"] as const;

/** The palette slot of `label` (`SPEAKER_NN`): NN modulo the palette's size. */
export function speakerColourIndex(label: string): number {
  const n = Number(/^SPEAKER_(\d+)$/.exec(label)?.[1] ?? 0);
  return n % SPEAKER_PALETTE.length;
}

/** The class that colours `label`'s name, swatch and row marker. */
export const speakerClass = (label: string): string => `spk-${speakerColourIndex(label)}`;

/** One rule per palette slot: `--spk` for the swatch and the row marker, `color` for the name. */
export const SPEAKER_CSS = SPEAKER_PALETTE.map((c, i) => `.spk-${i}{--spk:${c};color:${c}}`).join("\n");
