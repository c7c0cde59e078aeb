import { speakerTurns } from "../../contracts/speaker-turns";
import type { Segment } from "../../contracts/transcript";
import type { Db } from "../db/client";
import type { BlobStore } from "../storage/blobs";
import { readLayer, type LayerOwner } from "./layers";

/**
 * Who speaks when by a transcript's own speaker labels: its current segments, consecutive ones of
 * one speaker joined into a turn (contracts/speaker-turns.ts). Read by a dubbing (`dubbing.speakers`)
 * and by a consent check (the subject speaker's turns in the source media).
 */
export async function transcriptSpeakerTurns(
  db: Db,
  blobs: BlobStore,
  t: Pick<LayerOwner, "id" | "layers">,
): Promise<{ start: number; end: number; speaker: string }[]> {
  const segments = (await readLayer<Segment[]>(db, blobs, t, "segments")) ?? [];
  const labelled = segments.filter((s) => s.speaker !== undefined).sort((a, b) => a.start - b.start);
  return speakerTurns(labelled).map((turn) => ({
    start: turn.segments[0]!.start,
    end: Math.max(...turn.segments.map((s) => s.end)),
    speaker: turn.speaker!,
  }));
}
