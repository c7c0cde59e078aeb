import type { SpeakerFileOptions } from "../../../contracts/speaker-turns";
import { formatTimestamp } from "../../../contracts/subtitles";
import type { Segment, Speaker } from "../../../contracts/transcript";

/**
 * A transcript as an export renders it: one layer's segments with the speaker list and names as
 * they are now, so a file asked for after a rename shows the new names.
 */
export interface ExportDocument {
  transcriptionId: string;
  /** The source file's name without its extension, else the transcript's id. */
  title: string;
  language: string;
  durationSec: number;
  engine: string;
  model: string;
  revision: number;
  diarization: { engine: string; model: string } | null;
  speakers: Speaker[];
  segments: Segment[];
  /** Whether the human-readable formats name speakers (the export's `speakers`). */
  naming: SpeakerFileOptions;
}

/** `hh:mm:ss`, whole seconds: the timecode a reader looks up in a player. */
export const timecode = (seconds: number): string => formatTimestamp(seconds, ".").slice(0, 8);
