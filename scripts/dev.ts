import { onStopSignals } from "../gpu-runner/stop-signals";
import { startStack } from "./lib/stack";

/**
 * `npm run dev`: wrangler dev (API on http://127.0.0.1:8787 unless MEDIA_JOBS_API_PORT), the local
 * S3 server (port 9000 unless MEDIA_JOBS_S3_PORT; state kept under .local/state) and one gpu-runner.
 * One Ctrl-C stops all of it.
 */
const stack = await startStack({
  apiPort: Number(process.env["MEDIA_JOBS_API_PORT"] ?? 8787),
  s3Port: Number(process.env["MEDIA_JOBS_S3_PORT"] ?? 9000),
  runners: Number(process.env["MEDIA_JOBS_RUNNERS"] ?? 1),
  verbose: true,
});
process.stdout.write(
  `\nmedia-jobs local stack is up\n  API      ${stack.apiBaseUrl}\n  S3       ${stack.s3.endpoint} (bucket ${stack.bucket}, key S3RVER / S3RVER)\n  runners  ${stack.runners.length}\n\nNext: npm run --silent admin -- bootstrap\nCtrl-C stops everything.\n`,
);
// One Ctrl-C reaches this process more than once (terminal, npm, tsx): onStopSignals counts it
// once, so the runners get their grace to finish or release running work.
onStopSignals({
  stop() {
    process.stdout.write("\nstopping the local stack: runners finish or release their work first (Ctrl-C again to kill everything now)…\n");
    void stack.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`stopping failed: ${String(err)}\n`);
        stack.kill();
        process.exit(1);
      },
    );
  },
  force() {
    stack.kill();
    process.exit(1);
  },
});
