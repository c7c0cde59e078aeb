import { fileSpeakerName, speakerTurns } from "../../../contracts/speaker-turns";
import { joinWords } from "../../../contracts/text-words";
import { timecode, type ExportDocument } from "./document";

/**
 * The transcript as Markdown: a title, the language and duration, the speakers in a table, then a
 * paragraph per speaker turn opened by `**Name** [hh:mm:ss]` (without speakers, a paragraph per
 * segment opened by its timecode). Transcript text is escaped, so words never turn into markup.
 */
export function toMarkdown(doc: ExportDocument): string {
  const out = [`# ${inline(doc.title)}`, "", `- Language: ${inline(doc.language)}`, `- Duration: ${timecode(doc.durationSec)}`];
  const named = doc.naming.speakerLabels && doc.speakers.length > 0;
  if (named) {
    out.push("", "## Speakers", "", "| Speaker | Label | Speaking time | Segments |", "| --- | --- | --- | --- |");
    for (const s of doc.speakers)
      out.push(
        `| ${cell(fileSpeakerName(s.label, doc.naming) ?? s.label)} | ${s.label} | ${timecode(s.speakingSec)} | ${s.segmentCount} |`,
      );
  }
  out.push("", "## Transcript");
  if (named)
    for (const turn of speakerTurns(doc.segments)) {
      const name = turn.speaker === undefined ? null : fileSpeakerName(turn.speaker, doc.naming);
      const when = `[${timecode(turn.segments[0]!.start)}]`;
      out.push("", `${name === null ? "" : `**${inline(name)}** `}${when}`, inline(joinWords(turn.segments.map((s) => s.text))));
    }
  else for (const s of doc.segments) out.push("", `[${timecode(s.start)}]`, inline(s.text));
  return out.join("\n") + "\n";
}

/**
 * Text as literal Markdown: one line, the characters that open emphasis, code, links, HTML or a
 * table cell escaped, and a line that would start a heading or a list escaped at its start.
 */
function inline(text: string): string {
  return (
    text
      .replace(/\s+/g, " ")
      .trim()
      .replace(/[\\`*[\]<>|~]/g, (ch) => `\\${ch}`)
      // An underscore between letters or digits never opens emphasis (CommonMark): SPEAKER_01 stays as written.
      .replace(/(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu, "\\_")
      .replace(/^[#+-]/, (ch) => `\\${ch}`)
      .replace(/^(\d+)([.)])/, "$1\\$2")
  );
}

/** A table cell: inline text, never empty (an empty cell reads as a missing one). */
const cell = (text: string): string => inline(text) || " ";
