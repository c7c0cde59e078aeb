import { createHash } from "node:crypto";
import { readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * Task work directories under the runner's work root (RUNNER_WORK_DIR), named so that a runner
 * can tell its own leftovers from another live runner's work: `<taskId>-h<host>p<pid>-XXXXXX`.
 * A task removes its directory on every way out (task-runner.ts); what a crash or a SIGKILL left
 * behind is removed by the next runner that starts on the machine (`sweepLeftovers`), unless the
 * process that made it is still alive (several runners may share one work root).
 */

/** Eight hex digits of the host name: a work root on a shared volume is swept only by its own machine. */
const HOST = createHash("sha256").update(os.hostname()).digest("hex").slice(0, 8);

/** The `mkdtemp` prefix of a task's work directory. */
export function taskDirPrefix(taskId: string, pid = process.pid): string {
  const safeId = taskId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
  return `${safeId}-h${HOST}p${pid}-`;
}

const TASK_DIR = /-h([0-9a-f]{8})p(\d+)-[A-Za-z0-9]{6}$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the task directories under `workRoot` left by runners of this machine that are gone: a
 * process that no longer exists, or this very process id (a restarted container's runner has the
 * pid its predecessor had, and has made no directory yet). Returns the names removed.
 */
export async function sweepLeftovers(workRoot: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(workRoot);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = TASK_DIR.exec(name);
    if (!m || m[1] !== HOST) continue;
    const pid = Number(m[2]);
    if (pid !== process.pid && alive(pid)) continue;
    await rm(path.join(workRoot, name), { recursive: true, force: true, maxRetries: 3 });
    removed.push(name);
  }
  return removed;
}
