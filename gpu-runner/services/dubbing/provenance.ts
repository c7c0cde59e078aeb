import { rename } from "node:fs/promises";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";

/**
 * The provenance note every dubbed file the runner writes carries (issue 25; docs/api.md "Consent
 * for cloned voices"): container metadata naming the service, the dubbing, that the speech is
 * synthetic, and the engines and models that translated and spoke it. MP4 (the video and the
 * `mix.*.m4a`) keeps custom keys only with `-movflags use_metadata_tags` (then as `mdta` keys);
 * Matroska keeps any tag. FLAC artifacts (raw audio, vocals, background, speech) are the source's
 * own sound or the bare speech track and carry no note.
 */
export interface Provenance {
  dubbingId: string;
  translation: { backend: string; model: string };
  /** Every speech model a voice of the dub speaks with (`espeak-ng 1.51`, a hosted clone model). */
  speech: { engine: string; models: readonly string[] } | null;
}

export function provenanceTags(p: Provenance): Record<string, string> {
  const speech = p.speech ? `${p.speech.engine} (${p.speech.models.join("; ")})` : "none";
  const translation = `${p.translation.backend} (${p.translation.model})`;
  return {
    comment: `Synthetic speech: dubbed by media-jobs (dubbing ${p.dubbingId}); speech synthesis ${speech}; translation ${translation}.`,
    media_jobs_service: "media-jobs",
    media_jobs_dubbing_id: p.dubbingId,
    media_jobs_synthetic_speech: p.speech ? "true" : "false",
    media_jobs_speech_engine: p.speech?.engine ?? "none",
    media_jobs_speech_model: p.speech ? p.speech.models.join("; ") : "none",
    media_jobs_translation_engine: p.translation.backend,
    media_jobs_translation_model: p.translation.model,
  };
}

/** ffmpeg output options writing `tags` into `out`'s container (the movflags an MP4 needs for custom keys included). */
export function metadataArgs(tags: Readonly<Record<string, string>>, out: string): string[] {
  const mp4 = /\.(mp4|m4a|mov)$/i.test(out);
  return [
    ...Object.entries(tags).flatMap(([k, v]) => ["-metadata", `${k}=${v}`]),
    ...(mp4 ? ["-movflags", "+faststart+use_metadata_tags"] : []),
  ];
}

/** Writes the tags into an existing file: a stream copy into a sibling, renamed over it. */
export async function tagInPlace(path: string, tags: Readonly<Record<string, string>>, signal: AbortSignal): Promise<void> {
  const tmp = path.replace(/(\.[^./]+)$/, ".tagged$1");
  await runToolOk(
    FFMPEG,
    [
      "-hide_banner",
      "-nostdin",
      "-y",
      "-loglevel",
      "error",
      ...fileInput(path),
      "-map",
      "0",
      "-c",
      "copy",
      ...metadataArgs(tags, tmp),
      tmp,
    ],
    { signal },
  );
  await rename(tmp, path);
}
