import { parseArgs } from "node:util";
import type { Job } from "../contracts/job";
import { createTranslationEngine } from "../gpu-runner/engines/translation/factory";
import { loadPassages, openTenant, segmentsOf, sentencesOf, stageDurations, wordCount } from "./catalog-lib";
import { fmt, machineInfo, summarize, table, withFreshStack } from "./lib";

/**
 * Translation through the API beside the bare engine, in the same run: a 60-minute transcript (the
 * labelled corpus as one talk, bench/data, CC0) translated into Spanish by a real gpu-runner with the
 * local engine (Apertium through the stack's apertium-apy): the job's own time from `createdAt` to
 * `completedAt` (the Worker's clock, on this machine), and as the client sees it (create call to the
 * poll that sees it completed, polling every 500 ms so the polling itself does not load the 2 cores
 * the engine runs on); and the same texts through the same engine called directly in this process.
 * The goal: the API path adds at most 20 %, and gives the same text for every segment.
 *
 *   npx tsx bench/translation.ts [--runs 3]
 */
const { values: args } = parseArgs({
  options: { runs: { type: "string", default: "3" }, port: { type: "string", default: process.env["BENCH_API_PORT"] ?? "18994" } },
});
const RUNS = Math.max(1, Number(args.runs));

const passages = loadPassages();
const main = segmentsOf(passages.flatMap((p) => sentencesOf(p.text)));
const warm = segmentsOf(sentencesOf(passages[0]!.text));
const texts = main.map((s) => s.text);
const words = texts.reduce((n, t) => n + wordCount(t), 0);

await withFreshStack({ apiPort: Number(args.port), runners: 0 }, async (stack) => {
  if (!stack.apyUrl) throw new Error("the stack has no apertium-apy (local engines off)");
  const t = await openTenant(stack, "translation");
  const [warmId, mainId] = await t.transcribe([warm, main]);
  stack.startRunner();
  await t.waitForJob((await t.createJob("translation", { textSourceId: warmId, targetLanguage: "es" })).jobId);

  const engine = createTranslationEngine("apertium", { APERTIUM_APY_URL: stack.apyUrl });
  const translate = () => engine.translate({ source: "en", target: "es", texts, signal: AbortSignal.timeout(600_000) });
  await translate();

  const bare: number[] = [];
  const api: number[] = [];
  const client: number[] = [];
  const stage: number[] = [];
  let bareOut: string[] = [];
  let last: Job | undefined;
  // Interleaved, so both see the same load on the shared machine.
  for (let i = 0; i < RUNS; i++) {
    let s = performance.now();
    bareOut = await translate();
    bare.push(performance.now() - s);
    s = performance.now();
    last = await t.waitForJob((await t.createJob("translation", { textSourceId: mainId, targetLanguage: "es" })).jobId, 600_000, 500);
    client.push(performance.now() - s);
    api.push(Date.parse(last.completedAt ?? "") - Date.parse(last.createdAt));
    const d = stageDurations(await t.progress(last.jobId));
    stage.push(d.get("translate") ?? Number.NaN);
    if (process.env["BENCH_VERBOSE"]) {
      const t0 = Date.parse(last.createdAt);
      const marks = (await t.progress(last.jobId)).map((e) => `${e.stage}:${e.event}@${Date.parse(e.at) - t0}`);
      console.log(
        marks.join(" "),
        `startedAt@${Date.parse(last.startedAt ?? "") - t0} completedAt@${Date.parse(last.completedAt ?? "") - t0}`,
      );
    }
  }
  const record = await t.api<{ segments: Array<{ text: string }> }>(
    "GET",
    `/v1/translations/${String(last!.resultSummary?.["translationId"])}`,
  );
  const same = record.segments.filter((s, i) => s.text === bareOut[i]).length;

  const row = (name: string, ms: number[]) => {
    const s = summarize(ms.map((m) => m / 1000));
    return [name, fmt(s.p50, 2), fmt(s.min, 2), fmt(s.max, 2), fmt(texts.length / s.p50, 0), fmt(words / s.p50, 0)];
  };
  const overhead = (summarize(api).p50 / summarize(bare).p50 - 1) * 100;
  console.log(machineInfo());
  console.log(`command: npx tsx bench/translation.ts --runs ${RUNS}`);
  console.log(
    `transcript: the corpus as one talk, ${texts.length} segments, ${words} words, ${fmt((main.at(-1)?.end ?? 0) / 60, 1)} minutes, en → es\n`,
  );
  console.log(
    table(
      ["path", "p50 s", "min s", "max s", "segments/s", "words/s"],
      [
        row("bare engine (apertium via apy, in process)", bare),
        row("API: translation job, createdAt → completedAt", api),
        row("  as the client saw it (500 ms polling)", client),
        row("  of which the runner's translate stage", stage),
      ],
    ),
  );
  console.log(`\nAPI path over the bare engine: ${overhead >= 0 ? "+" : ""}${fmt(overhead, 0)} % (goal ≤ +20 %)`);
  console.log(`segments identical to the bare engine's: ${same} of ${texts.length}`);
});
