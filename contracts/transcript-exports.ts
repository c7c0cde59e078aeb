/**
 * `GET /v1/transcriptions/{transcriptionId}/export`, as the Worker, the typed client and the CLI
 * all name it: the formats it writes, the layers it reads, the header with the revision it rendered.
 */
export const EXPORT_FORMATS = ["docx", "md", "srt", "vtt", "txt", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_LAYERS = ["segments", "glossary", "raw"] as const;
export type ExportLayer = (typeof EXPORT_LAYERS)[number];

/** The transcript revision an export was rendered from. */
export const TRANSCRIPT_REVISION_HEADER = "x-transcript-revision";
