import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Diarization } from "../gpu-runner/engines/diarization/interface";
import { DEFAULT_LOCAL_OPTIONS, LocalDiarizationEngine } from "../gpu-runner/engines/diarization/local";
import { LocalPocketSphinxEngine, pocketSphinxConfigFromEnv } from "../gpu-runner/engines/speech/local-pocketsphinx";
import { CONVERSATIONS, conversationSample, VOICE_VARIANTS } from "../test/support/conversations";
import { attribution, diarizationError, type DiarizationError, type ScoredTurn } from "../test/support/diarization-score";
import { speechWav } from "../test/support/media-fixtures";
import { twoVoiceSample } from "../test/support/two-voice";
import { fmt, machineInfo, table } from "./lib";

/**
 * Local diarization benchmark: the local engine (gpu-runner/engines/diarization/local.ts) on the
 * recordings the tests build, scored against their truth beside the naive baseline measured in the
 * same run, and its time beside a local PocketSphinx transcription of the same recording (what the
 * transcription step adds by diarizing).
 *
 * Recordings: the two-voice conversation looped BENCH_LOOPS times (default 4, about 2¼ minutes; two
 * voices strictly taking turns), the two-speaker interview and the three-speaker panel (overlapped
 * turns, 0.3–0.8 s back-channels; test/support/conversations.ts), and the demo's sample speech
 * (29 s of LibriVox, no truth: speakers found and time only). Then, quality only, the same
 * scripts spoken by other voices (VOICE_VARIANTS), including voices of equal pitch.
 *
 * Scores (test/support/diarization-score.ts): attributed time right (of the time given to a
 * speaker, the share given to one really speaking, best one-to-one mapping), coverage, and the
 * diarization error rate (missed + false alarm + confusion over reference speech, overlapped speech
 * counted once per speaker, optimal mapping) with a 0.25 s collar and with none. The naive baseline
 * is everything one speaker over the same engine's speech regions (`maxSpeakers: 1`), so the two
 * differ only in who is said to speak. Times: BENCH_RUNS (default 3; 0 skips timing) pairs of a
 * diarization and a transcription, alternated, after a warm-up; medians. BENCH_WITHOUT_PITCH=1 runs the engine on MFCCs alone, as it was before
 * pitch was added (features.ts).
 *
 *   npx tsx bench/diarization.ts
 *   BENCH_LOOPS=8 BENCH_RUNS=5 npx tsx bench/diarization.ts
 */
const LOOPS = Number(process.env["BENCH_LOOPS"] ?? 4);
const RUNS = Number(process.env["BENCH_RUNS"] ?? 3);
const WITHOUT_PITCH = process.env["BENCH_WITHOUT_PITCH"] === "1";
const COLLAR_SEC = 0.25;
const run = promisify(execFile);

interface Recording {
  name: string;
  wav: string;
  durationSec: number;
  /** Absent: no truth, nothing scored. */
  truth?: ScoredTurn[];
}

const engine = new LocalDiarizationEngine(
  WITHOUT_PITCH ? { ...DEFAULT_LOCAL_OPTIONS, windows: { ...DEFAULT_LOCAL_OPTIONS.windows, pitchUnit: Infinity } } : DEFAULT_LOCAL_OPTIONS,
);
const speech = new LocalPocketSphinxEngine(pocketSphinxConfigFromEnv(process.env));

/**
 * Diarization and transcription timed alternately, RUNS pairs, so both see the same load on a
 * shared machine; the ratio is the median of the pairs' ratios.
 */
async function timePairs(diarize: () => Promise<unknown>, transcribe: () => Promise<unknown>) {
  const pairs: { diarizeSec: number; transcribeSec: number }[] = [];
  const timed = async (body: () => Promise<unknown>) => {
    const t0 = performance.now();
    await body();
    return (performance.now() - t0) / 1000;
  };
  for (let i = 0; i < RUNS; i++) pairs.push({ diarizeSec: await timed(diarize), transcribeSec: await timed(transcribe) });
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  return {
    diarizeSec: median(pairs.map((p) => p.diarizeSec)),
    transcribeSec: median(pairs.map((p) => p.transcribeSec)),
    ratio: median(pairs.map((p) => p.diarizeSec / p.transcribeSec)),
  };
}

const pct = (x: number) => (Number.isFinite(x) ? `${fmt(x * 100)} %` : "-");
const sec = (x: number, digits = 1) => (Number.isFinite(x) ? `${fmt(x, digits)} s` : "-");
const derParts = (d: DiarizationError) =>
  `${pct(d.rate)} (${fmt(d.missedSec)} / ${fmt(d.falseAlarmSec)} / ${fmt(d.confusionSec)} of ${fmt(d.referenceSec)} s)`;

const QUALITY_HEADER = [
  "recording",
  "speakers found",
  "attributed right",
  "coverage",
  `DER, ${COLLAR_SEC} s collar (missed / false alarm / confusion)`,
  "DER, no collar",
  "naive: attributed right",
  `naive: DER, ${COLLAR_SEC} s collar`,
  "naive: DER, no collar",
];

/** A row of QUALITY_HEADER: the engine's answer and the one-speaker answer against the truth. */
function qualityRow(name: string, truth: readonly ScoredTurn[], found: Diarization, naive: Diarization): string[] {
  const a = attribution(truth, found.turns);
  return [
    name,
    `${found.speakers.length} of ${new Set(truth.map((t) => t.speaker)).size}`,
    pct(a.accuracy),
    pct(a.coverage),
    derParts(diarizationError(truth, found.turns, { collarSec: COLLAR_SEC })),
    pct(diarizationError(truth, found.turns, { collarSec: 0 }).rate),
    pct(attribution(truth, naive.turns).accuracy),
    derParts(diarizationError(truth, naive.turns, { collarSec: COLLAR_SEC })),
    pct(diarizationError(truth, naive.turns, { collarSec: 0 }).rate),
  ];
}

const dir = await mkdtemp(path.join(os.tmpdir(), "bench-diarization-"));
try {
  const recordings: Recording[] = [];
  const twoVoice = await twoVoiceSample();
  const looped = path.join(dir, "two-voice-looped.wav");
  await run("ffmpeg", ["-v", "error", "-stream_loop", String(LOOPS - 1), "-i", twoVoice.wav, "-c:a", "pcm_s16le", looped]);
  recordings.push({
    name: `two-voice ×${LOOPS}`,
    wav: looped,
    durationSec: LOOPS * twoVoice.durationSec,
    truth: Array.from({ length: LOOPS }, (_, k) =>
      twoVoice.truth.map((t) => ({ start: t.start + k * twoVoice.durationSec, end: t.end + k * twoVoice.durationSec, speaker: t.voice })),
    ).flat(),
  });
  for (const script of CONVERSATIONS) {
    const c = await conversationSample(script);
    recordings.push({ name: script.name, wav: c.wav, durationSec: c.durationSec, truth: c.truth });
  }
  const sampleSpeech = await speechWav();
  recordings.push({
    name: "sample speech (LibriVox)",
    wav: sampleSpeech,
    durationSec: Number((await run("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", sampleSpeech])).stdout),
  });

  console.log(machineInfo());
  console.log(`runs ${RUNS}, collar ${COLLAR_SEC} s${WITHOUT_PITCH ? ", without pitch (MFCCs only)" : ""}\n`);
  // The first call loads the ONNX session: not part of a recording's cost.
  await engine.diarize({ audioPath: twoVoice.wav, signal: AbortSignal.timeout(60_000) });

  const quality: string[][] = [];
  const timing: string[][] = [];
  for (const r of recordings) {
    const signal = () => AbortSignal.timeout(600_000);
    const found = await engine.diarize({ audioPath: r.wav, signal: signal() });
    const naive = await engine.diarize({ audioPath: r.wav, maxSpeakers: 1, signal: signal() });
    const time = await timePairs(
      () => engine.diarize({ audioPath: r.wav, signal: signal() }),
      () => speech.transcribe(r.wav, { signal: signal() }),
    );
    quality.push(
      r.truth
        ? qualityRow(r.name, r.truth, found, naive)
        : [r.name, `${found.speakers.length} (no truth)`, ...new Array<string>(7).fill("-")],
    );
    timing.push([r.name, sec(r.durationSec), sec(time.diarizeSec, 2), sec(time.transcribeSec, 2), pct(time.ratio)]);
    console.error(`${r.name}: done, load ${os.loadavg()[0]!.toFixed(2)}`);
  }
  console.log(table(QUALITY_HEADER, quality));
  console.log();
  if (RUNS > 0)
    console.log(
      table(
        ["recording", "length", "diarize (median)", "PocketSphinx transcription (median)", "diarize ÷ transcription (median of pairs)"],
        timing,
      ),
    );

  const variants: string[][] = [];
  for (const script of VOICE_VARIANTS) {
    const c = await conversationSample(script);
    const voices = Object.values(script.voices)
      .map((v) =>
        v.engine === "festival"
          ? v.voice.replace(/^cmu_us_(\w+?)_.*$/, "$1")
          : `${v.voice}${v.pitch === undefined ? "" : ` pitch ${v.pitch}`}`,
      )
      .join(", ");
    const found = await engine.diarize({ audioPath: c.wav, signal: AbortSignal.timeout(600_000) });
    const naive = await engine.diarize({ audioPath: c.wav, maxSpeakers: 1, signal: AbortSignal.timeout(600_000) });
    variants.push(qualityRow(`${script.name} (${voices})`, c.truth, found, naive));
  }
  console.log("\nThe same scripts, other voices (quality only):\n");
  console.log(table(QUALITY_HEADER, variants));
  console.log(
    `\nload average at end ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
