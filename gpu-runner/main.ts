import { ConfigError, loadConfig, type RunnerConfig } from "./config";
import { buildHandlerRegistry } from "./services/index";
import { jsonLogger } from "./log";
import { Runner } from "./runner";

/**
 * Entry point: `npm run runner`. Configuration comes from the environment (see config.ts and
 * README.md). SIGTERM/SIGINT: stop leasing, let running tasks finish for up to
 * RUNNER_SHUTDOWN_GRACE_MS, release the rest, exit 0. A second signal exits at once.
 */
let config: RunnerConfig;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  throw err;
}

const log = jsonLogger({ runnerId: config.runnerId });
const handlers = buildHandlerRegistry({ enableTestHandlers: config.enableTestHandlers, runnerId: config.runnerId });
const runner = new Runner(config, { log, handlers });

let signals = 0;
const onSignal = (signal: NodeJS.Signals): void => {
  signals += 1;
  if (signals > 1) {
    log("warn", "exit_now", { signal });
    process.exit(1);
  }
  log("info", "signal", { signal });
  void runner.shutdown();
};
process.on("SIGTERM", onSignal);
process.on("SIGINT", onSignal);

process.on("unhandledRejection", (reason) => {
  log("error", "unhandled_rejection", { error: String(reason) });
});

runner.start().then(
  () => process.exit(0),
  (err: unknown) => {
    log("error", "runner_crashed", { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    process.exit(1);
  },
);
