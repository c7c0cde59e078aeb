import { Command, Option } from "commander";
import { writeFile } from "node:fs/promises";
import { MediaJobsError } from "../../client";
import { toFullText, toSrt, toVtt } from "../../../contracts/subtitles";
import { client, jsonOption, type Ctx } from "../context";
import { writeJson } from "../output";

/** `media-jobs transcripts get`. */

export function transcriptsCommand(ctx: Ctx): Command {
  const { io } = ctx;
  const cmd = new Command("transcripts").description("read transcripts");
  cmd
    .command("get")
    .description("print a transcript as SRT, WebVTT, plain text or the JSON record")
    .argument("<transcriptionId>", "the txt_ id (resultSummary.textSourceId)")
    .addOption(new Option("--format <format>", "output format").choices(["srt", "vtt", "txt", "json"]).default("txt"))
    .addOption(
      new Option("--layer <layer>", "which layer: the current (edited) segments, the glossary-applied or the raw engine output")
        .choices(["segments", "glossary", "raw"])
        .default("segments"),
    )
    .option("-o, --output <file>", "write to a file instead of stdout")
    .addOption(jsonOption())
    .action(
      async (
        id: string,
        flags: { format: "srt" | "vtt" | "txt" | "json"; layer: "segments" | "glossary" | "raw"; output?: string; json?: boolean },
      ) => {
        const { mj } = await client(io);
        const record = await mj.transcriptions.get(id, flags.format === "json" ? {} : { layers: [flags.layer] });
        if (record.status !== "completed" && flags.format !== "json")
          throw new MediaJobsError({ status: 0, code: "notCompleted", message: `transcription ${id} is ${record.status}` });
        // Rendered here from the API's segments with the runner's own writers: the same cues as the files in the bucket, plus any later edits.
        const segments = record[flags.layer] ?? [];
        const content =
          flags.format === "json"
            ? JSON.stringify(record, null, 2) + "\n"
            : flags.format === "srt"
              ? toSrt(segments)
              : flags.format === "vtt"
                ? toVtt(segments)
                : toFullText(segments);
        if (flags.output) {
          await writeFile(flags.output, content);
          if (flags.json)
            writeJson(io.stdout, { transcriptionId: id, format: flags.format, file: flags.output, bytes: Buffer.byteLength(content) });
          else io.stderr.write(`wrote ${flags.output}\n`);
          return;
        }
        if (flags.json)
          writeJson(
            io.stdout,
            flags.format === "json"
              ? record
              : { transcriptionId: id, format: flags.format, layer: flags.layer, revision: record.revision, content },
          );
        else io.stdout.write(content);
      },
    );
  return cmd;
}
