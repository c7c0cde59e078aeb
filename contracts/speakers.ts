import type { Segment, Speaker } from "./transcript";

/**
 * A diarized transcript's speakers, derived from its segments: the runner writes the list with the
 * transcript, and every edit that moves a segment to another speaker (a merge, a reassignment)
 * derives it again, so speaking times always add up to what the segments say. Names are the one
 * thing a person adds; they are carried over by label.
 */

/** The longest name a speaker may be given. */
export const SPEAKER_NAME_MAX_CHARS = 100;

/** Names by label; a label without one (or with null) shows as itself. */
export type SpeakerNames = Readonly<Record<string, string | null>>;

/** The speakers of `segments` in order of first appearance, with each one's speaking time, segment count and name. */
export function speakerList(segments: readonly Pick<Segment, "start" | "end" | "speaker">[], names: SpeakerNames = {}): Speaker[] {
  const byLabel = new Map<string, Speaker>();
  for (const s of segments) {
    if (s.speaker === undefined) continue;
    const sp = byLabel.get(s.speaker) ?? { label: s.speaker, name: names[s.speaker] ?? null, speakingSec: 0, segmentCount: 0 };
    sp.speakingSec += Math.max(0, s.end - s.start);
    sp.segmentCount++;
    byLabel.set(s.speaker, sp);
  }
  return [...byLabel.values()].map((s) => ({ ...s, speakingSec: Math.round(s.speakingSec * 1000) / 1000 }));
}

/** The names a speaker list carries, by label. */
export function namesOf(speakers: readonly Speaker[]): Record<string, string | null> {
  return Object.fromEntries(speakers.map((s) => [s.label, s.name]));
}

/** What a reader sees for `label`: the name a person gave it, else the label itself. */
export function speakerDisplayName(label: string, speakers: readonly Pick<Speaker, "label" | "name">[]): string {
  return speakers.find((s) => s.label === label)?.name ?? label;
}

/**
 * Who talks in a transcript, as one sentence for a summary: "A conversation between Ada Lovelace and
 * SPEAKER_01." (most speaking time first), "A conversation among 6 speakers, mostly Ada and Bo." past
 * four; null for fewer than two speakers, where there is nothing to say.
 */
export function conversationLine(speakers: readonly Speaker[]): string | null {
  if (speakers.length < 2) return null;
  const byTime = [...speakers].sort((a, b) => b.speakingSec - a.speakingSec).map((s) => (s.name ?? s.label).replace(/\s+/g, " ").trim());
  if (byTime.length > 4) return `A conversation among ${byTime.length} speakers, mostly ${byTime[0]} and ${byTime[1]}.`;
  return `A conversation between ${byTime.slice(0, -1).join(", ")} and ${byTime.at(-1)}.`;
}
