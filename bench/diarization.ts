import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { LocalDiarizationEngine } from "../gpu-runner/engines/diarization/local";
import { scoreAttribution, twoVoiceSample, type TruthTurn } from "../test/support/two-voice";

/**
 * Local diarization benchmark: accuracy and CPU time per minute of audio of the local engine
 * (gpu-runner/engines/diarization/local.ts) on the two-voice TTS conversation the tests build,
 * looped BENCH_LOOPS times (default 4, about 2¼ minutes) so the clustering sees a longer recording.
 *
 *   npx tsx bench/diarization.ts
 *   BENCH_LOOPS=8 BENCH_RUNS=3 npx tsx bench/diarization.ts
 */
const LOOPS = Number(process.env["BENCH_LOOPS"] ?? 4);
const RUNS = Number(process.env["BENCH_RUNS"] ?? 3);
const run = promisify(execFile);

const sample = await twoVoiceSample();
const dir = await mkdtemp(path.join(os.tmpdir(), "bench-diarization-"));
try {
  const wav = path.join(dir, "looped.wav");
  await run("ffmpeg", ["-v", "error", "-stream_loop", String(LOOPS - 1), "-i", sample.wav, "-c:a", "pcm_s16le", wav]);
  const truth: TruthTurn[] = Array.from({ length: LOOPS }, (_, k) =>
    sample.truth.map((t) => ({ ...t, start: t.start + k * sample.durationSec, end: t.end + k * sample.durationSec })),
  ).flat();
  const minutes = (LOOPS * sample.durationSec) / 60;
  const engine = new LocalDiarizationEngine();
  // The first call loads the ONNX session: not part of a recording's cost.
  await engine.diarize({ audioPath: sample.wav, signal: AbortSignal.timeout(60_000) });
  const times: number[] = [];
  let result = await engine.diarize({ audioPath: wav, signal: AbortSignal.timeout(600_000) });
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    result = await engine.diarize({ audioPath: wav, signal: AbortSignal.timeout(600_000) });
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const score = scoreAttribution(truth, result.turns);
  console.log(`recording        ${(minutes * 60).toFixed(1)} s (${LOOPS} × the two-voice conversation), ${os.cpus().length} cores`);
  console.log(`speakers         ${result.speakers.length} (${result.turns.length} turns, truth ${truth.length})`);
  console.log(`attributed right ${(score.accuracy * 100).toFixed(1)}%   speech covered ${(score.coverage * 100).toFixed(1)}%`);
  console.log(
    `time             median ${(times[Math.floor(times.length / 2)]! / 1000).toFixed(2)} s = ${(times[Math.floor(times.length / 2)]! / 1000 / minutes).toFixed(2)} s per minute of audio (best ${(times[0]! / 1000 / minutes).toFixed(2)})`,
  );
} finally {
  await rm(dir, { recursive: true, force: true });
}
