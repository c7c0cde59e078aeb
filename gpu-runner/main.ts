import { ConfigError, loadConfig, type RunnerConfig } from "./config";
import { buildHandlerRegistry } from "./services/index";
import { jsonLogger } from "./log";
import { Runner } from "./runner";
import { onStopSignals } from "./stop-signals";

/**
 * Entry point: `npm run runner`. Configuration comes from the environment (see config.ts and
 * README.md). SIGTERM/SIGINT: stop leasing, let running tasks finish for up to
 * RUNNER_SHUTDOWN_GRACE_MS, release the rest, exit 0. A second signal exits at once; repeats of
 * the first within half a second (one Ctrl-C under npm or tsx) do not count (stop-signals.ts).
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

onStopSignals({
  stop(signal) {
    log("info", "signal", { signal });
    void runner.shutdown();
  },
  duplicate(signal) {
    log("info", "signal_repeated", { signal });
  },
  force(signal) {
    log("warn", "exit_now", { signal });
    process.exit(1);
  },
});

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
