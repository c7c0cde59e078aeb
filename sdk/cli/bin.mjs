#!/usr/bin/env node
// The `media-jobs` entry: runs the TypeScript sources through the project's tsx, no build step.
import { register } from "tsx/esm/api";

register();
const { run } = await import("./main.ts");
process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
