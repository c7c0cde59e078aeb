import type { Job, SearchResponse } from "../client";
import type { OutStream } from "./progress";

/** Human-readable renderings; `--json` bypasses all of these. */

export function writeJson(out: OutStream, value: unknown): void {
  out.write(JSON.stringify(value, null, 2) + "\n");
}

const short = (v: unknown): string => {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
};

export function formatJob(job: Job): string {
  const rows: Array<[string, string]> = [];
  const row = (label: string, value: string) => rows.push([label, value]);
  row("created", job.createdAt);
  if (job.completedAt) row("finished", job.completedAt);
  if (job.currentStage) row("stage", job.currentStage);
  if (job.attemptCount > 0) row("attempts", String(job.attemptCount + 1));
  const ref = job.userMetadata?.["customerJobRef"];
  if (typeof ref === "string") row("ref", ref);
  if (job.resultSummary) {
    for (const [k, v] of Object.entries(job.resultSummary)) row(k, short(v));
  }
  if (job.error) row("error", `${job.error.code}: ${job.error.message}`);
  else if (job.lastError) row("lastError", job.lastError.message);
  // Labels include resultSummary's own keys (`textSourceId`), so the column fits the longest.
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  const lines = [`${job.jobId}  ${job.serviceType}  ${job.status}`, ...rows.map(([label, value]) => `  ${label.padEnd(width)}${value}`)];
  return lines.join("\n") + "\n";
}

export function formatJobTable(jobs: readonly Job[]): string {
  const rows = jobs.map((j) => [
    j.jobId,
    j.serviceType,
    j.status,
    j.currentStage ?? "-",
    j.createdAt,
    String(j.userMetadata?.["customerJobRef"] ?? ""),
  ]);
  const head = ["JOB", "SERVICE", "STATUS", "STAGE", "CREATED", "REF"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return (
    [head, ...rows]
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}

const clock = (sec: number) => `${Math.floor(sec / 60)}:${String(Math.floor(sec % 60)).padStart(2, "0")}`;

export function formatSearch(res: SearchResponse): string {
  if (res.results.length === 0) return `no results for "${res.query}"\n`;
  return (
    res.results
      .map(
        (r) => `${String(r.rank).padStart(2)}. ${r.textSourceId} ${clock(r.start)}-${clock(r.end)}  ${short(r.text.replace(/\s+/g, " "))}`,
      )
      .join("\n") + "\n"
  );
}
