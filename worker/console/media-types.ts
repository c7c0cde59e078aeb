/**
 * The headers of a media response on the console's origin (review finding M2). The bucket's
 * `Content-Type` is whatever the uploader declared, so it is never passed through: a record says what
 * its object should be (a transcript's source, a clip or a dub is audio or video; a thumbnail or a
 * poster is an image), and the response carries a type only when the declared one is on that kind's
 * list. Anything else (text/html, image/svg+xml, XML, PDF, nothing) goes out as an opaque download,
 * which a browser neither renders nor sniffs; a <video> or <img> on a console page still plays it.
 */

export type MediaKind = "audio-video" | "image";

/** What the service writes or reads: the sources it accepts, the clips, dubs and voices it renders. */
const AUDIO_VIDEO_TYPES = new Set([
  "video/mp4",
  "video/webm",
  "video/quicktime",
  "video/x-matroska",
  "video/mpeg",
  "video/mp2t",
  "video/ogg",
  "video/3gpp",
  "video/x-m4v",
  "video/x-msvideo",
  "video/x-flv",
  "video/x-ms-wmv",
  "audio/mpeg",
  "audio/mp4",
  "audio/x-m4a",
  "audio/aac",
  "audio/wav",
  "audio/wave",
  "audio/x-wav",
  "audio/ogg",
  "audio/webm",
  "audio/flac",
  "audio/x-flac",
]);

/** Raster formats only: SVG is a document that runs script, so it is never an image here. */
const IMAGE_TYPES = new Set(["image/jpeg", "image/png", "image/webp", "image/gif", "image/avif"]);

const ALLOWED: Record<MediaKind, ReadonlySet<string>> = { "audio-video": AUDIO_VIDEO_TYPES, image: IMAGE_TYPES };

const OPAQUE = "application/octet-stream";

/**
 * Media responses never run anything, even opened in a tab of their own: no script, no plugin,
 * a sandboxed origin. The console page that plays them is governed by its own policy.
 */
export const MEDIA_CSP = "default-src 'none'; sandbox";

/** `video/MP4; codecs="avc1"` → `video/mp4`; null for nothing or something that is not a media type. */
function essence(declared: string | null): string | null {
  const t = declared?.split(";")[0]?.trim().toLowerCase();
  return t && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(t) ? t : null;
}

/** The object's own name for a download, in characters every browser takes in a quoted filename. */
function fileName(key: string): string {
  const base = key.split("/").pop() ?? "";
  const safe = base.replace(/[^A-Za-z0-9._-]/g, "_").slice(-100);
  return /[A-Za-z0-9]/.test(safe) ? safe : "media";
}

/** The headers that describe the object to the browser, chosen from the record's kind and the store's declared type. */
export function mediaHeaders(declared: string | null, kind: MediaKind, key: string): Record<string, string> {
  const type = essence(declared);
  const allowed = type !== null && ALLOWED[kind].has(type);
  return {
    "content-type": allowed ? type : OPAQUE,
    "content-disposition": `${allowed ? "inline" : "attachment"}; filename="${fileName(key)}"`,
    "x-content-type-options": "nosniff",
    "content-security-policy": MEDIA_CSP,
    // Nothing of a customer's media stays in the browser's cache after sign-out (a shared machine).
    "cache-control": "no-store",
  };
}
