import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { apyArgs, writeApyModes } from "../../gpu-runner/engines/translation/apertium-apy-modes";

/**
 * A real apertium-apy server on a free loopback port, serving the mark-free copies of the installed
 * modes (apertium-apy-modes.ts), for tests of the apy engine. It takes a few seconds to start:
 * share one per file (`useFixture(startApertiumApy)`).
 */
export interface ApertiumApy {
  url: string;
  reset(): void;
  close(): Promise<void>;
}

export async function startApertiumApy(): Promise<ApertiumApy> {
  const dir = await mkdtemp(path.join(tmpdir(), "apy-modes-"));
  await writeApyModes(dir);
  const port = await freePort();
  const child = spawn("apertium-apy", apyArgs(port, dir), { stdio: ["ignore", "ignore", "pipe"], detached: true });
  let log = "";
  child.stderr!.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((r) => child.once("exit", r));
      process.kill(-child.pid, "SIGTERM");
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const end = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`apertium-apy exited with ${child.exitCode}: ${log}`);
    try {
      if ((await fetch(`${url}/listPairs`, { signal: AbortSignal.timeout(1_000) })).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > end) {
      await close();
      throw new Error(`apertium-apy did not answer /listPairs within 30 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, reset: () => undefined, close };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
