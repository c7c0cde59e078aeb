import { beforeAll, describe, expect, it } from "vitest";
import { readPcm16Wav, type Pcm16 } from "../../gpu-runner/engines/diarization/pcm";
import {
  CONVERSATIONS,
  conversationSample,
  type ConversationSample,
  type ConversationScript,
  type ConversationTruthTurn,
} from "../support/conversations";

/**
 * The multi-speaker recordings the diarization benchmark and tests score against
 * (test/support/conversations.ts): their truth follows the script and the audio follows the truth.
 */
const overlapSec = (a: ConversationTruthTurn, b: ConversationTruthTurn) => Math.min(a.end, b.end) - Math.max(a.start, b.start);

/** RMS of the samples in [start, end) seconds, in dBFS. */
function levelDb(pcm: Pcm16, start: number, end: number): number {
  let sum = 0;
  const a = Math.round(start * pcm.sampleRate);
  const b = Math.round(end * pcm.sampleRate);
  for (let i = a; i < b; i++) sum += pcm.samples[i]! ** 2;
  return 20 * Math.log10(Math.sqrt(sum / Math.max(1, b - a)) / 32768);
}

describe.each(CONVERSATIONS.map((script) => ({ name: script.name, script })))(
  "$name recording",
  ({ script }: { script: ConversationScript }) => {
    let sample: ConversationSample;
    let pcm: Pcm16;
    beforeAll(async () => {
      sample = await conversationSample(script);
      pcm = await readPcm16Wav(sample.wav);
    }, 120_000);

    it("has one truth turn per line of the script, in its order, by its speaker", () => {
      expect(sample.truth.map((t) => [t.speaker, t.kind])).toEqual(script.lines.map((l) => [l.speaker, l.kind]));
    });

    it("keeps every truth turn inside the recording, which is as long as its truth says", () => {
      expect(pcm.samples.length / pcm.sampleRate).toBeCloseTo(sample.durationSec, 3);
      for (const t of sample.truth) {
        expect(t.start).toBeGreaterThanOrEqual(0);
        expect(t.end).toBeGreaterThan(t.start);
        expect(t.end).toBeLessThanOrEqual(sample.durationSec);
      }
    });

    it("starts each turn where its gap from the previous turn's end says, overlapping it when the gap is negative", () => {
      let previous: ConversationTruthTurn | undefined;
      script.lines.forEach((line, i) => {
        if (line.kind !== "turn") return;
        const t = sample.truth[i]!;
        if (previous) expect(t.start - previous.end).toBeCloseTo(line.gapSec, 3);
        previous = t;
      });
    });

    it("has back-channels of 0.3–0.8 s by someone other than the speaker of the turn they follow", () => {
      let turn: ConversationTruthTurn | undefined;
      const backChannels = sample.truth.filter((t) => {
        if (t.kind === "turn") turn = t;
        else expect(t.speaker).not.toBe(turn?.speaker);
        return t.kind === "backchannel";
      });
      expect(backChannels.length).toBeGreaterThanOrEqual(5);
      for (const b of backChannels) {
        expect(b.end - b.start).toBeGreaterThanOrEqual(0.3);
        expect(b.end - b.start).toBeLessThanOrEqual(0.8);
      }
    });

    it("has overlapped speech: turns that start before the previous one ends and back-channels said during a turn", () => {
      const turns = sample.truth.filter((t) => t.kind === "turn");
      const overlappedTurns = turns.filter((t, i) => i > 0 && overlapSec(t, turns[i - 1]!) > 0);
      const overlappedBackChannels = sample.truth.filter((b) => b.kind === "backchannel" && turns.some((t) => overlapSec(b, t) > 0));
      expect(overlappedTurns.length).toBeGreaterThanOrEqual(3);
      expect(overlappedBackChannels.length).toBeGreaterThanOrEqual(3);
    });

    it("has every speaker of the script speak for at least 15 s", () => {
      for (const speaker of Object.keys(script.voices)) {
        const spoken = sample.truth.filter((t) => t.speaker === speaker).reduce((s, t) => s + t.end - t.start, 0);
        expect(spoken, speaker).toBeGreaterThanOrEqual(15);
      }
    });

    it("is loud where the truth says someone speaks and near silent where nobody does", () => {
      const speech = sample.truth.map((t) => levelDb(pcm, t.start, t.end));
      expect(Math.min(...speech)).toBeGreaterThan(-35);
      const gaps: { start: number; end: number }[] = [];
      let reach = 0;
      for (const t of [...sample.truth].sort((a, b) => a.start - b.start)) {
        if (t.start - reach >= 0.1) gaps.push({ start: reach, end: t.start });
        reach = Math.max(reach, t.end);
      }
      expect(gaps.length).toBeGreaterThan(0);
      for (const g of gaps) expect(levelDb(pcm, g.start, g.end)).toBeLessThan(-55);
    });
  },
);
