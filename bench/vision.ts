import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import sharp from "sharp";
import { createVisionEngine } from "../gpu-runner/engines/vision/factory";
import { salientRegion } from "../gpu-runner/engines/vision/saliency";
import { fmt, machineInfo, summarize, table } from "./lib";

/**
 * The local vision engine per sampled frame at the widths the pipeline might sample at, on the six
 * face-api group photographs (1920 px, 3–6 people). Baseline, measured in the same run: sharp
 * decoding the 1920 px photograph and resizing it to that width, which is what producing the frame
 * costs before any model sees it. Baseline and engine alternate per round so both see the same load.
 * Peak RSS is the process's high-water mark when that width's last round ends (one process, so it
 * mostly reflects the largest width; the line below the table gives the figure before the engine).
 *
 *   npx tsx bench/vision.ts [--rounds 3]
 */
const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
const rounds = Math.max(1, Number(args.rounds) || 3);
const WIDTHS = [480, 640, 960];
const SAMPLES = Array.from({ length: 6 }, (_, i) => path.resolve(`node_modules/@vladmandic/face-api/demo/sample${i + 1}.jpg`));
const mib = (kib: number) => kib / 1024;
const peakRssMiB = () => mib(process.resourceUsage().maxRSS);

const dir = await mkdtemp(path.join(os.tmpdir(), "media-jobs-bench-vision-"));
const engine = createVisionEngine("local-human", process.env);
try {
  console.log(machineInfo());
  console.log(`engine ${engine.engine}, model ${engine.model}; ${SAMPLES.length} photos x ${rounds} rounds per width\n`);
  const frames = new Map<number, string[]>();
  for (const w of WIDTHS) {
    const files: string[] = [];
    for (const [i, src] of SAMPLES.entries()) {
      const file = path.join(dir, `w${w}-${i + 1}.jpg`);
      await sharp(src).resize({ width: w }).jpeg({ quality: 90 }).toFile(file);
      files.push(file);
    }
    frames.set(w, files);
  }
  const rssBefore = peakRssMiB();
  const signal = new AbortController().signal;
  let t0 = performance.now();
  await engine.analyze([{ t: 0, path: frames.get(WIDTHS[0]!)![0]! }], { signal });
  const loadMs = performance.now() - t0;

  // One untimed pass so wasm kernels and allocator pools are warm for every width alike.
  for (const w of WIDTHS)
    await engine.analyze(
      frames.get(w)!.map((p, i) => ({ t: i, path: p })),
      { signal },
    );

  // Rounds go over every width in turn, so load drift on the machine spreads over all of them.
  const base = new Map(WIDTHS.map((w) => [w, [] as number[]]));
  const sal = new Map(WIDTHS.map((w) => [w, [] as number[]]));
  const eng = new Map(WIDTHS.map((w) => [w, [] as number[]]));
  const faces = new Map(WIDTHS.map((w) => [w, 0]));
  const rss = new Map<number, number>();
  for (let r = 0; r < rounds; r++) {
    for (const w of WIDTHS) {
      for (const [i, src] of SAMPLES.entries()) {
        t0 = performance.now();
        await sharp(src).resize({ width: w }).removeAlpha().raw().toBuffer();
        base.get(w)!.push(performance.now() - t0);
        const file = frames.get(w)![i]!;
        t0 = performance.now();
        await salientRegion(file);
        sal.get(w)!.push(performance.now() - t0);
        t0 = performance.now();
        const [obs] = await engine.analyze([{ t: i, path: file }], { signal });
        eng.get(w)!.push(performance.now() - t0);
        if (r === 0) faces.set(w, faces.get(w)! + obs!.faces.length);
      }
      rss.set(w, peakRssMiB());
    }
  }
  const rows = WIDTHS.map((w) => {
    const b = summarize(base.get(w)!);
    const s = summarize(sal.get(w)!);
    const e = summarize(eng.get(w)!);
    return [`${w} px`, fmt(b.p50), fmt(s.p50), fmt(e.p50), fmt(e.max), `${fmt(e.p50 / b.p50)}x`, String(faces.get(w)), fmt(rss.get(w)!, 0)];
  });
  console.log(
    table(
      [
        "frame width",
        "baseline: sharp decode+resize ms (p50)",
        "salient region only ms (p50)",
        "engine ms/frame (p50)",
        "engine max ms",
        "engine / baseline",
        "faces found in the 6 photos",
        "peak RSS MiB",
      ],
      rows,
    ),
  );
  console.log(`\nmodel load (first analyze, one 480 px frame): ${fmt(loadMs, 0)} ms; peak RSS before the engine ${fmt(rssBefore, 0)} MiB`);
} finally {
  await engine.close();
  await rm(dir, { recursive: true, force: true });
}
