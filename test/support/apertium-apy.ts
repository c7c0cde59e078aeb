import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { writeApyModes } from "../../gpu-runner/engines/translation/apertium-apy-modes";
import { startApyProcess } from "../../scripts/lib/engine-processes";
import { stopChild } from "../../scripts/lib/stack";

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
  const { child, url } = await startApyProcess({ modesDir: dir, log: () => undefined, timeoutMs: 30_000 }).catch(async (err: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    url,
    reset: () => undefined,
    close: async () => {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
