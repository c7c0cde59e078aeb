import type { IndexChunk } from "../../../contracts/catalog";
import { CHUNK_TEXT_MAX } from "../../../contracts/catalog";
import type { Segment } from "../../../contracts/transcript";

/**
 * Segment-aligned chunks for the catalog. A chunk is consecutive whole segments (never a cut inside
 * one, so a hit plays from a segment's start and its segment ids are exact) covering at least
 * `minSeconds` and at most `maxSeconds`; between those it closes at the first segment that ends a
 * sentence, so chunks hold whole thoughts. The next chunk starts with the last segments of the
 * previous one covering at most `overlapSeconds`, so an answer that straddles a boundary is whole in
 * one of the two. A single segment longer than `maxSeconds` is a chunk of its own.
 */
export interface ChunkOptions {
  minSeconds: number;
  maxSeconds: number;
  overlapSeconds: number;
}

type TextSegment = Pick<Segment, "id" | "start" | "end" | "text" | "speaker">;

const SENTENCE_END = /[.!?…。！？]["'”’)\]]*$/;

export function chunkSegments(segments: readonly TextSegment[], opts: ChunkOptions): IndexChunk[] {
  const segs = segments.filter((s) => s.text.trim() !== "");
  const chunks: IndexChunk[] = [];
  let from = 0;
  while (from < segs.length) {
    let to = from; // inclusive
    while (to + 1 < segs.length) {
      const span = segs[to]!.end - segs[from]!.start;
      const next = segs[to + 1]!.end - segs[from]!.start;
      if (next > opts.maxSeconds) break;
      if (span >= opts.minSeconds && SENTENCE_END.test(segs[to]!.text.trim())) break;
      to++;
    }
    chunks.push(makeChunk(chunks.length, segs.slice(from, to + 1)));
    if (to + 1 >= segs.length) break;
    // Overlap: step back over the chunk's tail segments within overlapSeconds, never to its own start.
    let next = to + 1;
    while (next - 1 > from && segs[to]!.end - segs[next - 1]!.start <= opts.overlapSeconds) next--;
    from = next;
  }
  return chunks;
}

function makeChunk(position: number, segs: readonly TextSegment[]): IndexChunk {
  const text = segs
    .map((s) => s.text.trim())
    .join(" ")
    .replace(/\s+/g, " ");
  return {
    position,
    start: segs[0]!.start,
    end: segs[segs.length - 1]!.end,
    segmentIds: segs.map((s) => s.id),
    // Who speaks in the chunk, in order of first appearance: a search hit can say who said it.
    speakers: [...new Set(segs.flatMap((s) => (s.speaker !== undefined ? [s.speaker] : [])))],
    text: text.length <= CHUNK_TEXT_MAX ? text : cutAtWord(text, CHUNK_TEXT_MAX),
  };
}

function cutAtWord(text: string, max: number): string {
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return space > max * 0.8 ? cut.slice(0, space) : cut;
}

/** Words as FTS5's unicode61 tokenizer splits them (letters and digits), lower-cased: the sparse side's terms. */
export function sparseTerms(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
