import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { addNoise, buildOnce, RATE, speak, wavBytes, type TtsVoice } from "./synthetic-speech";

/**
 * Multi-speaker conversations for measuring diarization, synthesised on this machine like the
 * two-voice sample (two-voice.ts) but closer to real talk: speakers alternate, some turns start
 * before the previous one has ended (overlapped speech), and listeners drop short back-channels
 * ("yeah", "mm-hm", 0.3–0.8 s) into the other speaker's turn or into a pause. Every utterance is
 * trimmed to its audible part and levelled to the same loudness (one room, one microphone), then
 * added sample by sample at its place in the recording, so the truth turns are exact and may
 * overlap. Built once per machine per script (the cache name carries a hash of the script).
 */
export interface ConversationTurn {
  kind: "turn";
  speaker: string;
  text: string;
  /** Seconds from the end of the previous turn (the first: from the lead-in) to this one's start; negative: it starts that long before the previous turn ends. */
  gapSec: number;
}

export interface ConversationBackChannel {
  kind: "backchannel";
  speaker: string;
  text: string;
  /** Seconds from the end of the previous turn; negative: said during it. Does not move the turns on. */
  atSec: number;
}

export type ConversationLine = ConversationTurn | ConversationBackChannel;

export interface ConversationScript {
  name: string;
  voices: Readonly<Record<string, TtsVoice>>;
  lines: readonly ConversationLine[];
}

export interface ConversationTruthTurn {
  /** Seconds from the start of the file. */
  start: number;
  end: number;
  speaker: string;
  kind: ConversationLine["kind"];
}

export interface ConversationSample {
  /** 16 kHz mono s16 WAV. */
  wav: string;
  /** One entry per line of the script, in its order; turns of different speakers may overlap. */
  truth: ConversationTruthTurn[];
  durationSec: number;
}

const LEAD_IN_SEC = 0.5;
const TAIL_SEC = 0.5;
/** Every utterance's RMS, −20 dBFS. */
const TARGET_RMS = 0.1 * 32768;

const FESTIVAL_SLT: TtsVoice = { engine: "festival", voice: "cmu_us_slt_arctic_hts" };

const turn = (speaker: string, gapSec: number, text: string): ConversationTurn => ({ kind: "turn", speaker, text, gapSec });
const backChannel = (speaker: string, atSec: number, text: string): ConversationBackChannel => ({
  kind: "backchannel",
  speaker,
  text,
  atSec,
});

/**
 * An interview, about 80 s: a host (eSpeak NG `en-us`, a man's voice) and a guest (eSpeak NG
 * `en+f4`, a woman's), three turns that start before the previous ends, six back-channels.
 */
export const TWO_SPEAKER_INTERVIEW: ConversationScript = {
  name: "two-speaker-interview",
  voices: { host: { engine: "espeak-ng", voice: "en-us" }, guest: { engine: "espeak-ng", voice: "en+f4" } },
  lines: [
    turn("host", 0, "Welcome back to the programme. Today I am talking to a gardener who turned an empty car park into a farm."),
    turn("guest", 0.5, "Thank you, it is lovely to be here. I should say it was a very small car park."),
    turn("host", 0.4, "How did the whole thing start?"),
    turn("guest", 0.5, "With a single raised bed and a lot of tools borrowed from the neighbours."),
    backChannel("host", -2.0, "mm-hm"),
    backChannel("host", 0.15, "yeah"),
    turn("guest", 1.1, "Then the neighbours started asking if they could have a bed of their own as well."),
    turn("host", -0.6, "So it grew by word of mouth rather than by any kind of plan."),
    turn("guest", 0.4, "Exactly, there was never a plan, only a waiting list that kept getting longer."),
    turn("host", 0.5, "What do people grow there now?"),
    turn("guest", 0.45, "Mostly beans, tomatoes and herbs, because the soil is shallow and the sun is strong."),
    backChannel("host", -1.4, "right"),
    turn("host", 0.6, "And the water, where does all the water come from in the summer?"),
    turn("guest", -0.5, "We collect rain from the roofs around the square into six old barrels."),
    turn("host", 0.5, "Six barrels does not sound like very much for a whole farm."),
    turn("guest", 0.4, "It is not, so in August we also carry buckets from the fountain by hand."),
    backChannel("host", 0.2, "oh really"),
    turn("guest", 1.1, "Yes, everyone takes a turn, even the children who come after school."),
    turn("host", 0.5, "That sounds like hard work, but also like a lot of fun."),
    backChannel("guest", -0.9, "sure"),
    turn("guest", 0.6, "It is both, and the tomatoes taste better for it, or so we tell ourselves."),
    turn("host", -0.7, "What would you tell someone who wants to start a garden like yours?"),
    turn("guest", 0.5, "Start small, ask your neighbours, and never turn down a free bag of compost."),
    backChannel("host", -1.0, "okay"),
    turn("host", 0.5, "That is good advice. Thank you very much for coming in today."),
    turn("guest", 0.4, "Thank you for having me, it was a real pleasure."),
  ],
};

/**
 * A panel, about 110 s: a moderator (Festival `slt`, a woman's voice) and two guests (eSpeak NG
 * `en-us+m3`, a man's voice, and `en+f3`, a British woman's), three turns that start before the
 * previous ends, eight back-channels.
 */
export const THREE_SPEAKER_PANEL: ConversationScript = {
  name: "three-speaker-panel",
  voices: {
    moderator: FESTIVAL_SLT,
    engineer: { engine: "espeak-ng", voice: "en-us+m3" },
    historian: { engine: "espeak-ng", voice: "en+f3" },
  },
  lines: [
    turn("moderator", 0, "Good evening and welcome to our panel about the old stone bridge in the middle of town."),
    turn("engineer", 0.5, "Thanks. The bridge is almost four hundred years old, and it is in worse shape than it looks."),
    turn("historian", -0.6, "I would disagree a little. The arches are sound, it is the road surface that is failing."),
    backChannel("engineer", -1.5, "mm-hm"),
    turn("moderator", 0.5, "So what needs to happen first, the arches or the road?"),
    turn("historian", 0.4, "The road, because water gets through the cracks and into the stone every winter."),
    backChannel("moderator", 0.15, "I see"),
    turn("engineer", 1.1, "And the water freezes, the stone splits, and the repair bill doubles."),
    turn("moderator", 0.5, "How much are we talking about for the whole repair?"),
    turn("engineer", 0.45, "The last estimate I saw was about two million, spread over three summers."),
    backChannel("historian", -1.0, "yeah"),
    turn("historian", 0.5, "That estimate is old, it was made before the flood damaged the eastern pier."),
    turn("moderator", -0.5, "Tell us about the flood. Was the bridge closed for long?"),
    turn("historian", 0.4, "For six weeks. Divers checked every pier before the engineers would open it again."),
    backChannel("engineer", 0.2, "exactly"),
    turn("engineer", 1.1, "And during those six weeks the shops on the old side lost half their trade."),
    turn("moderator", 0.5, "Which brings us to money again. Who should pay for all of this?"),
    turn("engineer", 0.4, "The town cannot pay alone. We need the county and probably a heritage grant."),
    backChannel("moderator", -1.3, "uh-huh"),
    turn("historian", -0.6, "The grant is possible, but only if we keep the original stone and the old methods."),
    turn("moderator", 0.5, "Is that more expensive than using modern materials?"),
    turn("historian", 0.4, "About a third more, but the repair lasts for a century instead of thirty years."),
    backChannel("engineer", -0.8, "right"),
    turn("engineer", 0.5, "Which is the argument I would make to the council next month."),
    turn("moderator", 0.6, "One last question for each of you. Should the bridge stay open to cars?"),
    turn("engineer", 0.5, "No. Buses and bicycles only. The weight of the traffic is what is killing it."),
    backChannel("historian", -1.1, "yeah"),
    turn("historian", 0.4, "I agree with that, for once, and I think most people in town would too."),
    backChannel("moderator", 0.15, "okay"),
    turn("moderator", 1.1, "Then we end on agreement. Thank you both for coming this evening."),
  ],
};

export const CONVERSATIONS: readonly ConversationScript[] = [TWO_SPEAKER_INTERVIEW, THREE_SPEAKER_PANEL];

const espeak = (voice: string, pitch?: number): TtsVoice => ({ engine: "espeak-ng", voice, ...(pitch === undefined ? {} : { pitch }) });

/**
 * The same two scripts spoken by other voices, for the benchmark to show how far the measured
 * figures carry: a woman and a man of different synthesisers, two men and two women of one
 * synthesiser at the same pitch (only the formants differ), one voice at two pitches, and panels
 * where two of the three share a pitch.
 */
export const VOICE_VARIANTS: readonly ConversationScript[] = [
  { ...TWO_SPEAKER_INTERVIEW, name: "interview-slt-en-gb", voices: { host: FESTIVAL_SLT, guest: espeak("en-gb") } },
  { ...TWO_SPEAKER_INTERVIEW, name: "interview-m3-m7", voices: { host: espeak("en-us+m3"), guest: espeak("en+m7") } },
  { ...TWO_SPEAKER_INTERVIEW, name: "interview-f2-f4", voices: { host: espeak("en+f2"), guest: espeak("en+f4") } },
  { ...TWO_SPEAKER_INTERVIEW, name: "interview-en-us-pitch-50-75", voices: { host: espeak("en-us"), guest: espeak("en-us", 75) } },
  {
    ...THREE_SPEAKER_PANEL,
    name: "panel-en-us-f4-slt",
    voices: { moderator: espeak("en-us"), engineer: espeak("en+f4"), historian: FESTIVAL_SLT },
  },
  {
    ...THREE_SPEAKER_PANEL,
    name: "panel-slt-m3-en-gb",
    voices: { moderator: FESTIVAL_SLT, engineer: espeak("en-us+m3"), historian: espeak("en-gb") },
  },
];

/** The conversation's recording and truth (built on first use). */
export async function conversationSample(script: ConversationScript): Promise<ConversationSample> {
  const hash = createHash("sha256").update(JSON.stringify(script)).digest("hex").slice(0, 12);
  const dir = path.join(os.tmpdir(), "media-jobs-conversations-v1", `${script.name}-${hash}`);
  await buildOnce(dir, ["recording.wav", "truth.json"], async (scratch) => {
    const { samples, truth } = await synthesise(script, scratch);
    await writeFile(path.join(scratch, "recording.wav"), wavBytes(samples));
    await writeFile(path.join(scratch, "truth.json"), JSON.stringify({ truth, durationSec: samples.length / RATE }));
  });
  const { truth, durationSec } = JSON.parse(await readFile(path.join(dir, "truth.json"), "utf8")) as {
    truth: ConversationTruthTurn[];
    durationSec: number;
  };
  return { wav: path.join(dir, "recording.wav"), truth, durationSec };
}

async function synthesise(script: ConversationScript, scratch: string): Promise<{ samples: Int16Array; truth: ConversationTruthTurn[] }> {
  const placed: { at: number; samples: Int16Array }[] = [];
  const truth: ConversationTruthTurn[] = [];
  // Sample index where the last turn (not back-channel) ended.
  let turnEnd = Math.round(LEAD_IN_SEC * RATE);
  for (const [i, line] of script.lines.entries()) {
    const voice = script.voices[line.speaker];
    if (!voice) throw new Error(`${script.name}: line ${i} is spoken by ${line.speaker}, who has no voice`);
    const samples = level(await speak(voice, line.text, scratch, `line-${i}`));
    const at = Math.max(0, turnEnd + Math.round((line.kind === "turn" ? line.gapSec : line.atSec) * RATE));
    placed.push({ at, samples });
    truth.push({ start: at / RATE, end: (at + samples.length) / RATE, speaker: line.speaker, kind: line.kind });
    if (line.kind === "turn") turnEnd = at + samples.length;
  }
  const length = Math.max(...placed.map((p) => p.at + p.samples.length)) + Math.round(TAIL_SEC * RATE);
  const mix = new Float64Array(length);
  for (const p of placed) for (let i = 0; i < p.samples.length; i++) mix[p.at + i]! += p.samples[i]!;
  const samples = Int16Array.from(mix, (x) => Math.max(-32768, Math.min(32767, Math.round(x))));
  addNoise(samples);
  return { samples, truth };
}

/** The utterance scaled to the common loudness (RMS), peaks held inside full scale. */
function level(s: Int16Array): Int16Array {
  let sum = 0;
  for (const x of s) sum += x * x;
  const rms = Math.sqrt(sum / Math.max(1, s.length));
  if (rms === 0) return s;
  let peak = 0;
  for (const x of s) peak = Math.max(peak, Math.abs(x));
  const gain = Math.min(TARGET_RMS / rms, 32000 / Math.max(1, peak));
  return Int16Array.from(s, (x) => Math.round(x * gain));
}
