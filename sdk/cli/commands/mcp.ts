import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { Command } from "commander";
import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import { client, positiveInt, type Ctx } from "../context";
import { UsageError } from "../exit-codes";
import { createMcpServer } from "../mcp/server";

/** `media-jobs mcp`: the API's tools for an MCP client, over stdio (docs/cli.md, "MCP server"). */

const { version } = createRequire(import.meta.url)("../../../package.json") as { version: string };

/** Stdout carries the protocol only: whatever a module logs with console.log goes to stderr instead. */
function consoleToStderr(): void {
  for (const method of ["log", "info", "debug"] as const) console[method] = console.error.bind(console);
}

export function mcpCommand(ctx: Ctx): Command {
  const { io } = ctx;
  return new Command("mcp")
    .description("serve the API as MCP tools over stdio, for Claude Desktop, agents and other MCP clients")
    .option(
      "--poll-interval <ms>",
      "wait_for_job: first poll interval (it grows while nothing changes)",
      positiveInt("--poll-interval"),
      1000,
    )
    .action(async (flags: { pollInterval: number }) => {
      const { stdin, stdout } = io;
      if (!(stdin instanceof Readable) || !(stdout instanceof Writable))
        throw new UsageError("mcp speaks over the process's own stdin and stdout");
      consoleToStderr();
      const server = createMcpServer(
        { connect: () => client(io), pollIntervalMs: flags.pollInterval, heartbeatMs: flags.pollInterval * 10 },
        version,
      );
      const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
      // The client closing our stdin ends the session: in-flight calls are aborted, then the process exits.
      stdin.once("end", () => void server.close());
      await server.connect(new StdioServerTransport(stdin, stdout));
      io.stderr.write(`media-jobs mcp ${version}: serving on stdio\n`);
      await closed;
    });
}
