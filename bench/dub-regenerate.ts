import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { TranslationSource } from "../contracts/services/translation";
import { INPUT_GUARD, runToolOk } from "../gpu-runner/media/spawn";
import { startLocalS3 } from "../scripts/lib/local-s3";
import { regenerateFrom, runBucketDub } from "../test/support/dubbing-run";
import { localS3Client, type RecordingReporter } from "../test/support/handler-context";
import { TWO_VOICE_SCRIPT, twoVoiceSample } from "../test/support/two-voice";
import { fmt, machineInfo, table } from "./lib";

/**
 * What regenerating a dub after ONE segment's text changed costs beside dubbing the whole video
 * (issue 25: ≤ 15 %). The source: the two-voice conversation (two synthetic voices taking turns,
 * test/support/two-voice.ts) repeated `--copies` times under a moving picture (×18: about ten
 * minutes, 144 segments), its utterances as the transcript. Both dubs run the runner's real
 * handler in this process with the local engines (Apertium, Silero VAD + MFCC diarization, eSpeak NG
 * voice profiles, rubberband, ffmpeg) against a local S3 and a fake platform: first a full dub, then
 * a regeneration from it of the transcript with one segment edited (translated again whole, as the
 * job does). Prints wall time and CPU time (this process and its waited-for children: ffmpeg,
 * eSpeak NG, rubberband, Apertium) of each, per stage.
 *
 *   npx tsx bench/dub-regenerate.ts [--copies 18] [--s3-port 8991]
 */
const { values: args } = parseArgs({
  options: { copies: { type: "string", default: "18" }, "s3-port": { type: "string", default: "8991" } },
});
const COPIES = Math.max(1, Number(args.copies));

/** CPU seconds of this process and its reaped children, from /proc/self/stat (utime, stime, cutime, cstime; 100 ticks a second). */
async function cpuSec(): Promise<number> {
  const stat = await readFile("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14–17 of the line; here counted from field 3 (state), so 11–14.
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) / 100;
}

/** Wraps the reporter so each stage's CPU time is summed under its name. */
function cpuPerStage(into: Map<string, number>) {
  return (report: RecordingReporter) => {
    const stage = report.stage.bind(report);
    report.stage = async <T>(name: string, fn: () => Promise<T>, details?: (result: T) => Record<string, unknown>): Promise<T> => {
      const c0 = await cpuSec();
      try {
        return await stage(name, fn, details);
      } finally {
        into.set(name, (into.get(name) ?? 0) + (await cpuSec()) - c0);
      }
    };
  };
}

const sample = await twoVoiceSample();
const dir = await mkdtemp(path.join(os.tmpdir(), "bench-dub-regenerate-"));
await writeFile(path.join(dir, "list.txt"), Array.from({ length: COPIES }, () => `file '${sample.wav}'`).join("\n"));
const wav = path.join(dir, "talk.wav");
const FF = ["-hide_banner", "-loglevel", "error", "-y"];
await runToolOk("ffmpeg", [...FF, "-f", "concat", "-safe", "0", ...INPUT_GUARD, "-i", path.join(dir, "list.txt"), "-c", "copy", wav]);
const video = path.join(dir, "talk.mp4");
await runToolOk("ffmpeg", [
  ...[...FF, "-f", "lavfi", ...INPUT_GUARD, "-i", "testsrc2=s=320x240:r=15", ...INPUT_GUARD, "-i", wav, "-shortest"],
  ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ar", "48000", video],
]);

const segments = Array.from({ length: COPIES }, (_, c) =>
  sample.truth.map((t, i) => ({
    start: t.start + c * sample.durationSec,
    end: t.end + c * sample.durationSec,
    text: TWO_VOICE_SCRIPT[i]!.text,
  })),
)
  .flat()
  .map((s, id) => ({ id, ...s }));
const CHANGED = Math.floor(segments.length / 2);
const transcript: TranslationSource = {
  textSourceId: "txt_bench",
  language: "en",
  durationSec: sample.durationSec * COPIES,
  revision: 1,
  speakers: [],
  sourceLayer: "current",
  segments,
  glossary: [],
};
const edited: TranslationSource = {
  ...transcript,
  revision: 2,
  segments: segments.map((s) => (s.id === CHANGED ? { ...s, text: "The sailors counted every bay of that coast by boat." } : s)),
};

const BUCKET = "bench";
const s3 = await startLocalS3({ buckets: [BUCKET], port: Number(args["s3-port"]) });
try {
  await localS3Client(s3).putObject(BUCKET, "src/talk.mp4", await readFile(video), "video/mp4");
  const measure = async (run: (observe: ReturnType<typeof cpuPerStage>) => ReturnType<typeof runBucketDub>) => {
    const cpu = new Map<string, number>();
    const [w0, c0] = [performance.now(), await cpuSec()];
    const out = await run(cpuPerStage(cpu));
    return { out, wallSec: (performance.now() - w0) / 1000, cpuSec: (await cpuSec()) - c0, cpu, wall: out.report.durations() };
  };
  const common = { s3, bucket: BUCKET, sourceKey: "src/talk.mp4" };
  const full = await measure((observe) => runBucketDub({ ...common, dubbingId: "dub_full", transcript, observe }));
  const previous = { input: regenerateFrom("dub_full", full.out.save, full.out.platform), record: full.out.save };
  const regen = await measure((observe) => runBucketDub({ ...common, dubbingId: "dub_regen", transcript: edited, previous, observe }));

  const r = regen.out.save.regenerated;
  const stages = [...new Set([...Object.keys(full.wall), ...Object.keys(regen.wall)])];
  const pct = (a: number, b: number) => (b > 0 ? `${fmt((100 * a) / b, 1)} %` : "-");
  console.log(machineInfo());
  console.log(`command: npx tsx bench/dub-regenerate.ts --copies ${COPIES}`);
  console.log(`date: ${new Date().toISOString()}`);
  console.log(
    `source: the two-voice conversation ×${COPIES}, ${fmt(full.out.save.durationSec, 1)} s, ${segments.length} segments, en → es; segment ${CHANGED}'s text changed; each dub run once\n`,
  );
  console.log(
    table(
      ["stage", "full wall s", "full CPU s", "regenerate wall s", "regenerate CPU s"],
      [
        ...stages.map((s) => [
          s,
          fmt((full.wall[s] ?? 0) / 1000, 2),
          fmt(full.cpu.get(s) ?? 0, 2),
          regen.wall[s] === undefined ? "skipped" : fmt(regen.wall[s] / 1000, 2),
          regen.cpu.has(s) ? fmt(regen.cpu.get(s)!, 2) : "-",
        ]),
        ["whole dub", fmt(full.wallSec, 1), fmt(full.cpuSec, 1), fmt(regen.wallSec, 1), fmt(regen.cpuSec, 1)],
      ],
    ),
  );
  console.log(`\nregenerate / full: wall ${pct(regen.wallSec, full.wallSec)}, CPU ${pct(regen.cpuSec, full.cpuSec)} (goal ≤ 15 %)`);
  console.log(
    `regenerated: mode ${r?.mode}${r?.reason ? ` (${r.reason})` : ""}, segments synthesized ${JSON.stringify(r?.segmentsSynthesized)}, reused ${r?.segmentsReused.length}/${regen.out.save.segments.length}; reused ${JSON.stringify(r?.reused)}`,
  );
} finally {
  await s3.close();
}
