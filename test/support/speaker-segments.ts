import type { Segment } from "../../contracts/transcript";

/** A diarized segment as a runner reports it: `text`'s words 0.3 s each, 0.05 s apart, every one labelled `speaker`. */
export function said(id: number, speaker: string, text: string, start: number): Segment {
  const words = text.split(" ").map((word, i) => ({ word, start: start + i * 0.35, end: start + i * 0.35 + 0.3, speaker }));
  return { id, start, end: words.at(-1)!.end, text, words, speaker };
}
