/** @jsxRuntime automatic */
/** @jsxImportSource hono/jsx */
import type { ExportFormat } from "../../../contracts/transcript-exports";

/** What each download is called on the page, in the order it lists them. */
const DOWNLOADS: ReadonlyArray<[ExportFormat, string]> = [
  ["docx", "Word (.docx)"],
  ["md", "Markdown (.md)"],
  ["srt", "SRT subtitles (.srt)"],
  ["vtt", "WebVTT subtitles (.vtt)"],
  ["txt", "Text (.txt)"],
  ["json", "Segments JSON (.json)"],
];

/**
 * A completed transcript's files, as it is now (edits and speaker names included). The links go
 * straight to the API's export route: a GET the session cookie authenticates, which answers an
 * attachment, so the browser saves the file and stays on the page.
 */
export function TranscriptDownloads(props: { transcriptionId: string; status: string }) {
  if (props.status !== "completed") return null;
  const base = `/v1/transcriptions/${encodeURIComponent(props.transcriptionId)}/export?format=`;
  return (
    <section aria-labelledby="downloads-h">
      <h2 id="downloads-h">Download</h2>
      <ul class="downloads">
        {DOWNLOADS.map(([format, label]) => (
          <li>
            <a href={`${base}${format}`} download>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </section>
  );
}
