import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Segment } from "../contracts/transcript";
import { INPUT_GUARD, runToolOk } from "../gpu-runner/media/spawn";
import { TWO_VOICE_SCRIPT, twoVoiceSample } from "../test/support/two-voice";
import { openTenant, stageDurations } from "./catalog-lib";
import { fmt, machineInfo, table, withFreshStack } from "./lib";

/**
 * Dubbing through the API on a fresh local stack with the local engines and one real gpu-runner:
 * the two-voice conversation (two TTS voices taking turns, test/support/two-voice.ts) repeated
 * `--copies` times under a moving picture, its utterances as the transcript (the bench plays the
 * runner for the transcription only), translated into Spanish by Apertium, then dubbed. Prints
 * wall time per minute of source and per stage, beside a baseline measured in the same run: one
 * ffmpeg pass that decodes the source's audio and re-muxes it with the picture copied (the least
 * any dub must do), and the sync figures the issue sets (every segment starts within 100 ms, none
 * overruns its slot by more than 5 %, the dubbed video as long as the source within 0.1 s).
 *
 *   npx tsx bench/dubbing.ts [--copies 6]
 */
const { values: args } = parseArgs({
  options: { copies: { type: "string", default: "6" }, port: { type: "string", default: process.env["BENCH_API_PORT"] ?? "18995" } },
});
const COPIES = Math.max(1, Number(args.copies));

const sample = await twoVoiceSample();
const dir = await mkdtemp(path.join(os.tmpdir(), "bench-dubbing-"));
const list = path.join(dir, "list.txt");
await writeFile(list, Array.from({ length: COPIES }, () => `file '${sample.wav}'`).join("\n"));
const wav = path.join(dir, "talk.wav");
await runToolOk("ffmpeg", [
  "-hide_banner",
  "-loglevel",
  "error",
  "-y",
  "-f",
  "concat",
  "-safe",
  "0",
  ...INPUT_GUARD,
  "-i",
  list,
  "-c",
  "copy",
  wav,
]);
const video = path.join(dir, "talk.mp4");
await runToolOk("ffmpeg", [
  ...[
    "-hide_banner",
    "-loglevel",
    "error",
    "-y",
    "-f",
    "lavfi",
    ...INPUT_GUARD,
    "-i",
    "testsrc2=s=640x360:r=25",
    ...INPUT_GUARD,
    "-i",
    wav,
    "-shortest",
  ],
  ...["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ar", "48000", video],
]);
const segments: Segment[] = Array.from({ length: COPIES }, (_, c) =>
  sample.truth.map((t, i) => ({
    start: t.start + c * sample.durationSec,
    end: t.end + c * sample.durationSec,
    text: TWO_VOICE_SCRIPT[i]!.text,
  })),
)
  .flat()
  .map((s, id) => ({ id, ...s }));

// Baseline: decode the audio and mux it back under the copied picture, once.
const base0 = performance.now();
await runToolOk("ffmpeg", [
  "-hide_banner",
  "-loglevel",
  "error",
  "-y",
  ...INPUT_GUARD,
  "-i",
  video,
  "-map",
  "0:v",
  "-map",
  "0:a",
  "-c:v",
  "copy",
  "-c:a",
  "aac",
  path.join(dir, "remux.mp4"),
]);
const baselineSec = (performance.now() - base0) / 1000;

await withFreshStack({ apiPort: Number(args.port), runners: 0 }, async (stack) => {
  const t = await openTenant(stack, "dubbing");
  const [txt] = await t.transcribe([segments]);
  const { source } = await t.api<{ source: { sourceKey: string } }>("GET", `/v1/transcriptions/${txt}?layers=segments`);
  await t.s3.putObject(t.tenant.bucket, source.sourceKey, await readFile(video), "video/mp4");
  stack.startRunner();
  const trl = await t.waitForJob((await t.createJob("translation", { textSourceId: txt, targetLanguage: "es" })).jobId);
  const translationId = String(trl.resultSummary?.["translationId"]);

  const started = performance.now();
  const job = await t.waitForJob(
    (await t.createJob("dubbing", { transcriptionId: txt, targetLanguage: "es", translationId })).jobId,
    3_600_000,
  );
  const wallSec = (performance.now() - started) / 1000;
  const stages = stageDurations(await t.progress(job.jobId));
  const rec = await t.api<{
    durationSec: number;
    speakers: Array<{ label: string; status: string }>;
    segments: Array<{ speech: string; stretch: number | null; flags: string[] }>;
    sync: { maxStartOffsetSec: number; maxOverrunRatio: number; durationDeltaSec: number };
    loudness: { integratedLufs: number | null };
  }>("GET", `/v1/dubbings/${String(job.resultSummary?.["dubbingId"])}`);
  const minutes = rec.durationSec / 60;
  const spoken = rec.segments.filter((s) => s.speech === "spoken");

  console.log(machineInfo());
  console.log(`command: npx tsx bench/dubbing.ts --copies ${COPIES}`);
  console.log(
    `source: the two-voice conversation ×${COPIES}, ${fmt(rec.durationSec, 1)} s, ${segments.length} segments, en → es; one real gpu-runner, local engines\n`,
  );
  console.log(
    table(
      ["what", "seconds", "per minute of source"],
      [
        ["dubbing job, create → completed", fmt(wallSec, 1), fmt(wallSec / minutes, 1)],
        ...[...stages].map(([name, ms]) => [`  ${name}`, fmt(ms / 1000, 2), fmt(ms / 1000 / minutes, 2)]),
        ["baseline: decode + re-mux once (ffmpeg)", fmt(baselineSec, 2), fmt(baselineSec / minutes, 2)],
      ],
    ),
  );
  console.log(`\nspeakers: ${rec.speakers.map((s) => `${s.label} ${s.status}`).join(", ")}`);
  console.log(
    `segments spoken ${spoken.length}/${rec.segments.length}; compressed ${spoken.filter((s) => (s.stretch ?? 1) < 1).length}, rate raised ${spoken.filter((s) => s.flags.includes("rate_raised")).length}, trimmed ${spoken.filter((s) => s.flags.includes("trimmed")).length}`,
  );
  console.log(
    `sync: max start offset ${fmt(rec.sync.maxStartOffsetSec * 1000, 0)} ms (goal ≤ 100), max overrun ${fmt(rec.sync.maxOverrunRatio * 100, 2)} % of a slot (goal ≤ 5), duration delta ${fmt(rec.sync.durationDeltaSec, 3)} s (goal ≤ 0.1); mix ${rec.loudness.integratedLufs} LUFS`,
  );
});
