import { execFile } from "node:child_process";
import path from "node:path";

/** The Python client's folder (sdk/python): its sources under src/, its tests and tools under tests/. */
export const PYTHON_SDK = path.join(import.meta.dirname, "..", "..", "sdk", "python");

export interface PythonRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs python3 with the client's sources importable (PYTHONPATH=src), from sdk/python, `input` on
 * stdin. Resolves with the exit code and output; never rejects on a non-zero exit.
 */
export function runPython(
  args: string[],
  options: { input?: string; env?: Record<string, string>; timeoutMs?: number; python?: string } = {},
): Promise<PythonRun> {
  return new Promise((resolve) => {
    const child = execFile(
      options.python ?? "python3",
      args,
      {
        cwd: PYTHON_SDK,
        env: { ...process.env, PYTHONPATH: path.join(PYTHON_SDK, "src"), PYTHONDONTWRITEBYTECODE: "1", ...options.env },
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? "");
  });
}

/** A Python file's output as JSON, or a failure naming its stderr. */
export async function pythonJson<T>(args: string[], options: Parameters<typeof runPython>[1] = {}): Promise<T> {
  const run = await runPython(args, options);
  if (run.code !== 0) throw new Error(`python3 ${args.join(" ")} exited ${run.code}:\n${run.stderr}`);
  return JSON.parse(run.stdout) as T;
}
