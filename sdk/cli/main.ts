import { Command, CommanderError } from "commander";
import { MediaJobsError, WaitTimeoutError } from "../client";
import { clipsCommand } from "./commands/clips";
import { jobsCommand } from "./commands/jobs";
import { loginCommand } from "./commands/login";
import { mcpCommand } from "./commands/mcp";
import { searchCommand } from "./commands/search";
import { transcriptsCommand } from "./commands/transcripts";
import { configPath } from "./config";
import type { CliIo, Ctx } from "./context";
import { EXIT, EXIT_CODES_HELP, UsageError, type ExitCode } from "./exit-codes";
import { writeJson } from "./output";

/**
 * `media-jobs`, the command-line tool over the client in sdk/client. `run` takes its streams,
 * environment and fetch as arguments so tests drive it in-process; bin.mjs passes the real ones.
 */
export type { CliIo } from "./context";

export function buildProgram(ctx: Ctx): Command {
  const { io } = ctx;
  const program = new Command("media-jobs")
    .description(`media-jobs command-line tool. Config: ${configPath(io.env)} (or MEDIA_JOBS_URL and MEDIA_JOBS_KEY).`)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError("(add --help for usage)")
    .addHelpText("after", EXIT_CODES_HELP);
  // Each command tree is built on its own, then takes the root's exitOverride and output (inherit).
  for (const make of [loginCommand, jobsCommand, transcriptsCommand, clipsCommand, searchCommand, mcpCommand])
    program.addCommand(inherit(program, make(ctx)));
  return program;
}

/** `addCommand` does not copy the parent's settings onto a ready-made command: do it for the whole subtree. */
function inherit(parent: Command, cmd: Command): Command {
  cmd.copyInheritedSettings(parent);
  for (const sub of cmd.commands) inherit(cmd, sub);
  // Every runnable command's --help ends with the exit codes, not only the root's.
  if (cmd.commands.length === 0) cmd.addHelpText("after", EXIT_CODES_HELP);
  return cmd;
}

function reportError(io: CliIo, argv: readonly string[], err: unknown): ExitCode {
  const json = argv.includes("--json");
  const fail = (code: ExitCode, error: Record<string, unknown>, text: string) => {
    if (json) writeJson(io.stdout, { error });
    io.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
    return code;
  };
  if (err instanceof CommanderError) {
    // Commander has printed the message or the help already.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof UsageError) return fail(EXIT.usage, { code: "usage", message: err.message }, `error: ${err.message}`);
  if (err instanceof WaitTimeoutError) {
    if (json) writeJson(io.stdout, err.job);
    io.stderr.write(`error: ${err.message}\n`);
    return EXIT.timedOut;
  }
  if (err instanceof MediaJobsError) {
    const details = err.details.map((d) => `\n  ${d.path}: ${d.issue}`).join("");
    const status = err.status ? ` (HTTP ${err.status})` : "";
    const request = err.requestId ? `\n  request id: ${err.requestId}` : "";
    return fail(
      EXIT.api,
      { status: err.status, code: err.code, message: err.message, details: err.details, requestId: err.requestId },
      `error: ${err.code}${status}: ${err.message}${details}${request}`,
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return fail(EXIT.failed, { code: "localError", message }, `error: ${message}`);
}

/** Runs the tool; resolves to its exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  let exit: ExitCode = EXIT.ok;
  const program = buildProgram({ io, setExit: (code) => (exit = code) });
  try {
    await program.parseAsync([...argv], { from: "user" });
    return exit;
  } catch (err) {
    return reportError(io, argv, err);
  }
}
