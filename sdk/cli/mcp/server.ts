import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerContentTools } from "./content-tools";
import { registerJobTools } from "./job-tools";
import type { ToolContext } from "./tool-context";
import { registerWorkflowTools } from "./workflow-tools";

/** The `media-jobs mcp` server: every tool, over whatever transport the caller connects. */
export function createMcpServer(ctx: ToolContext, version: string): McpServer {
  const server = new McpServer(
    { name: "media-jobs", title: "media-jobs", version },
    {
      instructions:
        "Tools for the media-jobs API: submit a job (transcription, clips, thumbnails, metadata, summaries, search indexing, translation, dubbing) or a workflow of several, wait for it, read its transcript, search indexed transcripts. A transcription's result is resultSummary.textSourceId (txt_…), the input of later jobs and of get_transcript.",
    },
  );
  registerJobTools(server, ctx);
  registerContentTools(server, ctx);
  registerWorkflowTools(server, ctx);
  return server;
}
