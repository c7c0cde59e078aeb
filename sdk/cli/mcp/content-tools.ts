import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { formatSearch } from "../output";
import { guarded, toolResult } from "./results";
import { GetTranscriptInput, SearchInput, SearchOutput, TranscriptOutput } from "./schemas";
import type { ToolContext } from "./tool-context";

/** `get_transcript` and `search_catalog`: reading what the jobs made. */

export function registerContentTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "get_transcript",
    {
      title: "Read a transcript",
      description:
        "A transcript as plain text, SRT, WebVTT, Markdown or its segments as JSON, rendered by the API now (with every edit and speaker name so far). The id is a completed transcription's resultSummary.textSourceId.",
      inputSchema: GetTranscriptInput,
      outputSchema: TranscriptOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ transcriptionId, format, layer, speakers }) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        const file = await mj.transcriptions.export(transcriptionId, format, { layer, ...(speakers ? {} : { speakers: false }) });
        const content = file.text();
        return toolResult(content, { transcriptionId, format, layer, revision: file.revision, content });
      }),
  );

  server.registerTool(
    "search_catalog",
    {
      title: "Search the catalog",
      description:
        "Search the project's indexed transcripts (indexer jobs) by meaning and words: ranked passages with their transcript id and time range.",
      inputSchema: SearchInput,
      outputSchema: SearchOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ query, ...options }) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        const res = await mj.catalog.search(query, options);
        return toolResult(formatSearch(res), { ...res });
      }),
  );
}
