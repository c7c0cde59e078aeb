import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { apyArgs } from "../../gpu-runner/engines/translation/apertium-apy-modes";

/**
 * The local engine processes the stack (and tests) start beside the Worker, each on a loopback port
 * that is really theirs. A port picked by binding 0 and releasing it can be taken by anything else on
 * the machine before the child binds it (workerd's internal sockets, another test's server): the
 * embeddings server therefore binds port 0 itself and says which port it got; apertium-apy cannot, so
 * it is started again on a fresh port when it exits because its port was taken.
 */

const require = createRequire(import.meta.url);
/**
 * Node processes run as `node --import <tsx loader>`, not through tsx's CLI: the CLI is a second
 * process that relays signals to the real one, so a runner would see a stop signal twice (exiting at
 * once), or be SIGKILLed when it is slow to acknowledge the relay.
 */
export const TSX_LOADER = pathToFileURL(path.join(path.dirname(require.resolve("tsx/package.json")), "dist/loader.mjs")).href;
const ROOT = path.resolve(import.meta.dirname, "../..");

export interface EngineProcess {
  child: ChildProcess;
  url: string;
}

type Log = (d: Buffer) => void;

function pipe(child: ChildProcess, log: Log): void {
  child.stdout?.on("data", log);
  child.stderr?.on("data", log);
}

/**
 * The embeddings server on a port of its own choosing. Resolves once the port is bound (about a
 * second: node and tsx starting), not once the vectors are loaded: its /health answers then.
 */
export async function startEmbeddingsProcess(opts: { env: NodeJS.ProcessEnv; log: Log; timeoutMs?: number }): Promise<EngineProcess> {
  const child = spawn(
    process.execPath,
    ["--import", TSX_LOADER, path.join(ROOT, "scripts/local-engines/embeddings-server.ts"), "--port", "0"],
    { cwd: ROOT, env: opts.env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  pipe(child, opts.log);
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    const timer = setTimeout(
      () => fail(new Error(`the embeddings server did not bind a port within ${opts.timeoutMs ?? 60_000} ms`)),
      opts.timeoutMs ?? 60_000,
    );
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1]) done(() => resolve(m[1]!));
    };
    const onExit = (code: number | null) =>
      fail(new Error(`the embeddings server exited with ${code} before binding a port:\n${out.slice(-4000)}`));
    const done = (then: () => void) => {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stderr?.off("data", onData);
      child.off("exit", onExit);
      then();
    };
    const fail = (err: Error) => done(() => reject(err));
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", onExit);
  }).catch((err: unknown) => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    throw err;
  });
  return { child, url };
}

/**
 * apertium-apy serving `modesDir` on a free loopback port, answering /listPairs. Started again (at
 * most `attempts` times) on a fresh port if it exits before answering, which is what it does when
 * its port was taken in the moment between our choosing it and its binding it.
 */
export async function startApyProcess(opts: {
  modesDir: string;
  env?: NodeJS.ProcessEnv;
  log: Log;
  timeoutMs?: number;
  attempts?: number;
  /** How a port is chosen for each attempt (tests choose a taken one). */
  choosePort?: () => Promise<number>;
}): Promise<EngineProcess> {
  const attempts = opts.attempts ?? 3;
  let last = "";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const port = await (opts.choosePort ?? freePort)();
    const child = spawn("apertium-apy", apyArgs(port, opts.modesDir), {
      cwd: ROOT,
      env: opts.env ?? process.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const log: Log = (d) => {
      out = (out + d.toString()).slice(-4000);
      opts.log(d);
    };
    pipe(child, log);
    const spawnError = new Promise<Error>((resolve) => child.once("error", resolve));
    const url = `http://127.0.0.1:${port}`;
    const outcome = await Promise.race([waitForListPairs(url, child, opts.timeoutMs ?? 60_000), spawnError]);
    if (outcome === "up") return { child, url };
    if (outcome instanceof Error) throw new Error(`apertium-apy could not be started: ${outcome.message}`);
    if (outcome === "timeout") {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      throw new Error(`apertium-apy did not answer ${url}/listPairs within ${opts.timeoutMs ?? 60_000} ms:\n${out}`);
    }
    last = out;
    // Anything but a taken port is not going to get better on another port.
    if (!/address already in use|EADDRINUSE/i.test(out)) break;
  }
  throw new Error(`apertium-apy exited before answering:\n${last}`);
}

async function waitForListPairs(url: string, child: ChildProcess, timeoutMs: number): Promise<"up" | "exited" | "timeout"> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null || child.signalCode !== null) return "exited";
    try {
      if ((await fetch(`${url}/listPairs`, { signal: AbortSignal.timeout(1_000) })).ok) return "up";
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return "timeout";
}

/** A free loopback port (the kernel's choice, released again for the child to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
