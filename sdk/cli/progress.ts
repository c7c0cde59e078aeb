import type { Job, JobProgressView } from "../client";

/** What the display writes to: a stream that may be a terminal. */
export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressDisplay {
  update(job: Job, fraction?: number | null): void;
  /** Ends the live line (the final state stays on screen). */
  stop(): void;
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}` : `${pad(Math.floor(s / 60))}:${pad(s % 60)}`;
}

export function progressBar(fraction: number, width = 20): string {
  const f = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(f * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${String(Math.round(f * 100)).padStart(3)}%`;
}

/**
 * The running stage's completed share, when the stage reports one. No Job field carries a fraction:
 * `currentStage` names the stage only. The console-only progress endpoint's entries have free-form
 * `details`; a stage that puts a number 0..1 in `details.fraction` gets a bar.
 */
export function stageFraction(view: JobProgressView): number | null {
  for (let i = view.progress.length - 1; i >= 0; i--) {
    const entry = view.progress[i]!;
    if (entry.stage !== view.currentStage) continue;
    const f = entry.details?.["fraction"];
    return typeof f === "number" && f >= 0 && f <= 1 ? f : null;
  }
  return null;
}

function describe(job: Job, now: number, fraction: number | null | undefined): string {
  const elapsed = formatElapsed(now - Date.parse(job.createdAt));
  const stage = job.currentStage ? ` · ${job.currentStage}` : "";
  const retry = job.attemptCount > 0 ? ` · attempt ${job.attemptCount + 1}` : "";
  const bar = fraction !== null && fraction !== undefined ? ` ${progressBar(fraction)}` : "";
  return `${job.jobId} ${job.status}${stage}${retry} · ${elapsed}${bar}`;
}

/**
 * On a terminal: one line redrawn in place, its elapsed time ticking every second. Elsewhere (a
 * pipe, a CI log): one plain line per change, nothing redrawn.
 */
export function createProgressDisplay(out: OutStream, options: { now?: () => number } = {}): ProgressDisplay {
  const now = options.now ?? Date.now;
  if (!out.isTTY) {
    let lastLine = "";
    return {
      update(job, fraction) {
        const line = `${job.jobId} ${job.status}${job.currentStage ? ` ${job.currentStage}` : ""}${fraction != null ? ` ${Math.round(fraction * 100)}%` : ""}`;
        if (line !== lastLine) out.write(`${formatElapsed(now() - Date.parse(job.createdAt))} ${line}\n`);
        lastLine = line;
      },
      stop() {},
    };
  }
  let current: { job: Job; fraction: number | null | undefined } | null = null;
  // A progress read still in flight may answer after the wait ended: nothing is drawn then.
  let stopped = false;
  const draw = () => {
    if (!current || stopped) return;
    const text = describe(current.job, now(), current.fraction);
    const width = out.columns ?? 120;
    out.write(`\r\x1b[2K${text.length >= width ? text.slice(0, width - 1) : text}`);
  };
  const timer = setInterval(draw, 1000);
  timer.unref?.();
  return {
    update(job, fraction) {
      current = { job, fraction };
      draw();
    },
    stop() {
      clearInterval(timer);
      if (current && !stopped) out.write("\n");
      stopped = true;
    },
  };
}
