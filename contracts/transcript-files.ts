import type { SpeakerFileOptions } from "./speaker-turns";
import { joinWords, toFullText, toSegmentsJson, toSrt, toVtt, type SegmentsDocument } from "./subtitles";
import type { Segment } from "./transcript";

/**
 * The transcript's four files in the customer's bucket (`outputKeys`): how each is rendered and what
 * type it is stored with. The transcription's runner step writes them first; a `transcript_files` job
 * (in the Worker) rewrites them from a later revision with the same table, so both write the same bytes
 * for the same segments.
 */
export const TRANSCRIPT_FILE_NAMES = ["fullText", "segments", "srt", "vtt"] as const;
export type TranscriptFileName = (typeof TRANSCRIPT_FILE_NAMES)[number];

export const TRANSCRIPT_FILES: Readonly<
  Record<TranscriptFileName, { render: (doc: SegmentsDocument, speakers: SpeakerFileOptions) => string; type: string }>
> = {
  fullText: { render: (doc, speakers) => toFullText(doc.segments, speakers), type: "text/plain; charset=utf-8" },
  segments: { render: (doc) => toSegmentsJson(doc), type: "application/json" },
  srt: { render: (doc, speakers) => toSrt(doc.segments, speakers), type: "application/x-subrip; charset=utf-8" },
  vtt: { render: (doc, speakers) => toVtt(doc.segments, speakers), type: "text/vtt; charset=utf-8" },
};

/** The progress stage of each file's upload, as the transcription names them. */
export const TRANSCRIPT_FILE_STAGES = {
  fullText: "upload_full_text",
  segments: "upload_segments",
  srt: "upload_transcript_srt",
  vtt: "upload_transcript_vtt",
} as const satisfies Record<TranscriptFileName, string>;

const spaced = (text: string) => text.trim().replace(/\s+/g, " ");

/**
 * The segments as the subtitle writers should read them: a segment whose words no longer spell its
 * text (the text was edited, or a glossary spelling replaced a word; an edit keeps the word timings)
 * loses its words, so its cues show the text, spread over the segment's time, instead of the words
 * heard before. A segment whose words still spell its text keeps them and their timings.
 */
export function segmentsForFiles(segments: readonly Segment[]): Segment[] {
  return segments.map((s) => {
    if (!s.words?.length || spaced(joinWords(s.words)) === spaced(s.text)) return s;
    const { words: _heard, ...rest } = s;
    return rest;
  });
}
