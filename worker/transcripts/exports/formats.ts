import { create as contentDisposition } from "content-disposition";
import { toFullText, toSegmentsJson, toSrt, toVtt } from "../../../contracts/subtitles";
import { EXPORT_FORMATS, type ExportFormat } from "../../../contracts/transcript-exports";
import type { ExportDocument } from "./document";
import { toMarkdown } from "./markdown";

interface FormatWriter {
  contentType: string;
  render(doc: ExportDocument): string | Promise<ArrayBuffer>;
}

/**
 * What the export writes: the runner's four files, Markdown and Word. SRT, WebVTT, text and JSON
 * come from the runner's writers (contracts/subtitles.ts), so an export is the file in the bucket
 * with the edits and names made since.
 */
const WRITERS: Record<ExportFormat, FormatWriter> = {
  docx: {
    contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    // Loaded on first use: the bundler then evaluates the Word writer (about half a megabyte) only in
    // an isolate that writes a document, not in every isolate's startup.
    render: async (doc) => (await import("./docx")).toDocx(doc),
  },
  md: { contentType: "text/markdown; charset=utf-8", render: toMarkdown },
  srt: { contentType: "application/x-subrip; charset=utf-8", render: (doc) => toSrt(doc.segments, doc.naming) },
  vtt: { contentType: "text/vtt; charset=utf-8", render: (doc) => toVtt(doc.segments, doc.naming) },
  txt: { contentType: "text/plain; charset=utf-8", render: (doc) => toFullText(doc.segments, doc.naming) },
  json: { contentType: "application/json", render: (doc) => toSegmentsJson(doc) },
};

/** Each format's content type, for the OpenAPI document. */
export const EXPORT_CONTENT_TYPES: readonly string[] = EXPORT_FORMATS.map((f) => WRITERS[f].contentType);

export interface RenderedExport {
  body: string | ArrayBuffer;
  contentType: string;
  /** The `Content-Disposition` value: an attachment named after the source. */
  disposition: string;
}

export async function renderExport(doc: ExportDocument, format: ExportFormat): Promise<RenderedExport> {
  const writer = WRITERS[format];
  return {
    body: await writer.render(doc),
    contentType: writer.contentType,
    disposition: attachment(doc.title, doc.transcriptionId, format),
  };
}

/** Longest file name stem an export is given, in characters. */
const MAX_STEM = 100;

/**
 * `attachment; filename="<stem>.<ext>"` (unquoted when the name is an HTTP token, as RFC 6266
 * allows; content-disposition writes it). The stem is the source's name, which the customer chose and
 * may hold anything an object key may: quotes, backslashes, line breaks (in rows from before keys
 * were checked), slashes, Unicode. `filename` gets an ASCII stem of letters, digits, spaces, `.`,
 * `_` and `-` (everything else `_`), which every client reads; a name that differs from it also
 * goes in `filename*` (RFC 8187, percent-encoded UTF-8) without control characters, quotes or
 * slashes, for clients that show Unicode names.
 */
export function attachment(title: string, fallbackStem: string, extension: string): string {
  const unicode = stem(title.replace(/[\p{Cc}\p{Cf}"\\/]+/gu, "_"));
  const ascii = stem(
    unicode
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .replace(/[^A-Za-z0-9 ._-]+/g, "_"),
  );
  if (!ascii) return contentDisposition(`${fallbackStem}.${extension}`);
  const name = `${unicode}.${extension}`;
  const fallback = `${ascii}.${extension}`;
  return name === fallback ? contentDisposition(fallback) : contentDisposition(name, { fallback });
}

/** Runs of `_` and spaces squeezed, separators trimmed from the ends (no hidden `.name`), at most MAX_STEM characters. */
function stem(s: string): string {
  const squeezed = s.replace(/\s+/g, " ").replace(/_+/g, "_");
  return [...squeezed]
    .slice(0, MAX_STEM)
    .join("")
    .replace(/^[\s._-]+|[\s._-]+$/g, "");
}
