import { speakerDisplayName } from "./speakers";
import type { Segment, Speaker } from "./transcript";

/**
 * What the transcript writers (SRT, WebVTT, text, Markdown, DOCX) need to name speakers: the
 * transcript's speaker list as it is when the file is written, so a name given before then is in
 * the file, and whether to name them at all (the job's `options.subtitleSpeakers`, the export's
 * `speakers`).
 */
export interface SpeakerFileOptions {
  speakers: readonly Pick<Speaker, "label" | "name">[];
  speakerLabels: boolean;
}

/**
 * The name a file shows for `label`: the person's name, else the label; null when speakers are
 * not to be named (no options, or `speakerLabels` off). Whitespace runs become one space: a line
 * break inside a name would end an SRT cue or a Markdown paragraph early.
 */
export function fileSpeakerName(label: string, options: SpeakerFileOptions | undefined): string | null {
  if (!options?.speakerLabels) return null;
  const name = speakerDisplayName(label, options.speakers).replace(/\s+/g, " ").trim();
  return name === "" ? label : name;
}

/** A run of consecutive segments with the same speaker (undefined: segments nobody was told apart for). */
export interface SpeakerTurn<S extends Pick<Segment, "speaker"> = Segment> {
  speaker: string | undefined;
  segments: S[];
}

/** The segments in order, grouped into turns: a new turn starts wherever the speaker changes. */
export function speakerTurns<S extends Pick<Segment, "speaker">>(segments: readonly S[]): SpeakerTurn<S>[] {
  const turns: SpeakerTurn<S>[] = [];
  for (const s of segments) {
    const last = turns.at(-1);
    if (last && last.speaker === s.speaker) last.segments.push(s);
    else turns.push({ speaker: s.speaker, segments: [s] });
  }
  return turns;
}
