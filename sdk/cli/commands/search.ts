import { Command, Option } from "commander";
import { SEARCH_MODES } from "../../../contracts/catalog";
import { client, jsonOption, positiveInt, type Ctx } from "../context";
import { formatSearch, writeJson } from "../output";

/** `media-jobs search`. */

export function searchCommand(ctx: Ctx): Command {
  const { io } = ctx;
  return new Command("search")
    .description("semantic search over the project's indexed transcripts")
    .argument("<query>")
    .option("--limit <n>", "results, 1-50", positiveInt("--limit"))
    .addOption(new Option("--mode <mode>", "ranking").choices([...SEARCH_MODES]))
    .option("--transcript <ids>", "only these txt_ ids, comma-separated", (v: string) => v.split(",").filter(Boolean))
    .option("--language <code>", "only transcripts in this language")
    .addOption(jsonOption())
    .action(
      async (
        query: string,
        flags: { limit?: number; mode?: (typeof SEARCH_MODES)[number]; transcript?: string[]; language?: string; json?: boolean },
      ) => {
        const { mj } = await client(io);
        const res = await mj.catalog.search(query, {
          ...(flags.limit ? { limit: flags.limit } : {}),
          ...(flags.mode ? { mode: flags.mode } : {}),
          ...(flags.transcript ? { textSourceIds: flags.transcript } : {}),
          ...(flags.language ? { language: flags.language } : {}),
        });
        if (flags.json) writeJson(io.stdout, res);
        else io.stdout.write(formatSearch(res));
      },
    );
}
