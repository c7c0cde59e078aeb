import { Command, Option } from "commander";
import { writeFile } from "node:fs/promises";
import { EXPORT_FORMATS, EXPORT_LAYERS, type ExportFormat, type ExportLayer } from "../../../contracts/transcript-exports";
import { client, jsonOption, type Ctx } from "../context";
import { UsageError } from "../exit-codes";
import { writeJson } from "../output";

/** `media-jobs transcripts get`. */

export function transcriptsCommand(ctx: Ctx): Command {
  const { io } = ctx;
  const cmd = new Command("transcripts").description("read transcripts");
  cmd
    .command("get")
    .description("print or save a transcript as SRT, WebVTT, text, Markdown or Word (docx), or the JSON record")
    .argument("<transcriptionId>", "the txt_ id (resultSummary.textSourceId)")
    .addOption(new Option("--format <format>", "output format").choices(EXPORT_FORMATS).default("txt"))
    .addOption(
      new Option("--layer <layer>", "which layer: the current (edited) segments, the glossary-applied or the raw engine output")
        .choices(EXPORT_LAYERS)
        .default("segments"),
    )
    .option("--no-speakers", "leave speaker names out of the file")
    .option("-o, --output <file>", "write to a file instead of stdout")
    .addOption(jsonOption())
    .action(async (id: string, flags: { format: ExportFormat; layer: ExportLayer; speakers: boolean; output?: string; json?: boolean }) => {
      const { mj } = await client(io);
      // `--format json` prints the transcript record, as it always has; every other format is the API's export.
      if (flags.format === "json") {
        const content = JSON.stringify(await mj.transcriptions.get(id), null, 2) + "\n";
        if (flags.output) await save(flags.output, content, flags.json, { transcriptionId: id, format: "json" });
        else io.stdout.write(content);
        return;
      }
      if (flags.format === "docx" && !flags.output) throw new UsageError("--format docx is a binary file: give --output <file>");
      // Rendered by the API with the runner's own writers: the same cues as the file in the bucket, plus later edits and names.
      const file = await mj.transcriptions.export(id, flags.format, {
        layer: flags.layer,
        ...(flags.speakers ? {} : { speakers: false }),
      });
      const about = { transcriptionId: id, format: flags.format, layer: flags.layer, revision: file.revision };
      if (flags.output) await save(flags.output, file.bytes, flags.json, about);
      else if (flags.json) writeJson(io.stdout, { ...about, content: file.text() });
      else io.stdout.write(file.text());
    });

  /** Writes the file; says where on stderr, or with --json what it wrote on stdout. */
  async function save(
    path: string,
    content: string | Uint8Array,
    json: boolean | undefined,
    about: Record<string, unknown>,
  ): Promise<void> {
    await writeFile(path, content);
    const bytes = typeof content === "string" ? Buffer.byteLength(content) : content.byteLength;
    if (json) writeJson(io.stdout, { ...about, file: path, bytes });
    else io.stderr.write(`wrote ${path}\n`);
  }
  return cmd;
}
