import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** `media-jobs mcp` as an MCP client starts it: bin.mjs in a child process, spoken to over its stdio by the SDK's own Client. */

export const CLI_BIN = path.join(import.meta.dirname, "../../sdk/cli/bin.mjs");

export interface McpSession {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/** `env` is the server's whole environment beside PATH: the config home and MEDIA_JOBS_URL/KEY a test gives. */
export async function startMcpServer(env: Record<string, string>, args: string[] = []): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, "mcp", ...args],
    env: { PATH: process.env["PATH"] ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "media-jobs-tests", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A tool's answer as the SDK's client returns it, narrowed to the (non-task) call result. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  options: Parameters<Client["callTool"]>[2] = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
}

/** The text of a tool answer's content (every tool answers one text block). */
export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
}
