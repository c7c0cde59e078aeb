import { redactSegments } from "../../contracts/pii/redact";
import type { PiiEntityType } from "../../contracts/redaction";
import type { Segment, Word } from "../../contracts/transcript";

/**
 * Segments for the redaction tests: `text` split at white space, one word each `wordSec` from
 * `start`, with timings (as PocketSphinx and Whisper give them) or without (text only).
 */
export function segmentOf(text: string, opts: { id?: number; start?: number; wordSec?: number; withWords?: boolean } = {}): Segment {
  const { id = 0, start = 0, wordSec = 0.5, withWords = true } = opts;
  const pieces = text.split(/\s+/).filter(Boolean);
  const words: Word[] = pieces.map((word, i) => ({ word, start: start + i * wordSec, end: start + (i + 1) * wordSec - 0.05 }));
  return { id, start, end: start + pieces.length * wordSec, text, ...(withWords ? { words } : {}) };
}

/** What the detector redacts in `text`: each entity's type and the words it covered, as "TYPE: words". */
export function redactedIn(text: string, language = "en", entities?: readonly PiiEntityType[]): string[] {
  const segment = segmentOf(text);
  const words = segment.words!.map((w) => w.word);
  return redactSegments([segment], { language, ...(entities ? { entities } : {}) }).entities.map(
    (e) => `${e.type}: ${words.slice(e.wordStart, e.wordEnd).join(" ")}`,
  );
}
