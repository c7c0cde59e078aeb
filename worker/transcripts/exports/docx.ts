import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun, WidthType } from "docx";
import { fileSpeakerName, speakerTurns } from "../../../contracts/speaker-turns";
import { joinWords } from "../../../contracts/text-words";
import { timecode, type ExportDocument } from "./document";

/**
 * The transcript as a Word document (the `docx` package writes the OOXML and zips it; it runs in
 * the Worker as it does in Node): a heading, the language and duration, the speakers in a table,
 * then a paragraph per speaker turn with the name in bold and the turn's timecode (without
 * speakers, a paragraph per segment after its timecode). Text goes in as runs, never as markup.
 */
export async function toDocx(doc: ExportDocument): Promise<ArrayBuffer> {
  const named = doc.naming.speakerLabels && doc.speakers.length > 0;
  const body: Array<Paragraph | Table> = [
    new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun(plain(doc.title))] }),
    fact("Language", plain(doc.language)),
    fact("Duration", timecode(doc.durationSec)),
  ];
  if (named) {
    body.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun("Speakers")] }));
    body.push(
      new Table({
        width: { size: 100, type: WidthType.PERCENTAGE },
        rows: [
          row(["Speaker", "Label", "Speaking time", "Segments"], true),
          ...doc.speakers.map((s) =>
            row([plain(fileSpeakerName(s.label, doc.naming) ?? s.label), s.label, timecode(s.speakingSec), String(s.segmentCount)]),
          ),
        ],
      }),
    );
  }
  body.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun("Transcript")] }));
  if (named)
    for (const turn of speakerTurns(doc.segments)) {
      const name = turn.speaker === undefined ? null : fileSpeakerName(turn.speaker, doc.naming);
      body.push(
        new Paragraph({
          children: [
            ...(name === null ? [] : [new TextRun({ text: plain(name), bold: true }), new TextRun(" ")]),
            new TextRun({ text: `[${timecode(turn.segments[0]!.start)}]`, color: "666666" }),
            new TextRun({ text: plain(joinWords(turn.segments.map((s) => s.text))), break: 1 }),
          ],
        }),
      );
    }
  else
    for (const s of doc.segments)
      body.push(
        new Paragraph({ children: [new TextRun({ text: `[${timecode(s.start)}] `, color: "666666" }), new TextRun(plain(s.text))] }),
      );
  const file = new Document({
    title: plain(doc.title),
    description: `Transcript ${doc.transcriptionId}, revision ${doc.revision}`,
    creator: "media-jobs",
    sections: [{ children: body }],
  });
  return Packer.pack(file, "arraybuffer");
}

function fact(label: string, value: string): Paragraph {
  return new Paragraph({ children: [new TextRun({ text: `${label}: `, bold: true }), new TextRun(value)] });
}

function row(cells: string[], header = false): TableRow {
  return new TableRow({
    tableHeader: header,
    children: cells.map((text) => new TableCell({ children: [new Paragraph({ children: [new TextRun({ text, bold: header })] })] })),
  });
}

/**
 * Text a Word paragraph can hold: XML 1.0 has no place for most control characters (a document
 * with one does not open), and a line break inside a run is not a break in Word, so whitespace
 * runs become one space.
 */
function plain(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      "",
    )
    .replace(/\s+/g, " ")
    .trim();
}
