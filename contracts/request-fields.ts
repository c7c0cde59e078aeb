import { z } from "zod";

/**
 * Field schemas shared by the request shapes of `POST /v1/jobs` (each service's input schema lives
 * in its contract under `contracts/services/`). Objects are strict: a field the spec says must not
 * be sent (`priority`, `options.preprocessing`, `options.analysis`, model options) is an
 * unrecognised key, answered 422 with issue `notAllowed` on its path.
 */

export const custom = (issue: string, message: string) => ({ message, params: { issue } });

export const CUSTOMER_JOB_REF_MAX = 120;
/** How deep `userMetadata` may nest (the object itself is level 1). */
export const USER_METADATA_MAX_DEPTH = 32;
export const USER_METADATA_MAX_BYTES = 16_384;

/**
 * Whether a parsed JSON value nests deeper than `max` objects/arrays. Walked with an explicit stack,
 * not recursion: a body of a few hundred KiB can nest hundreds of thousands of levels, which
 * `JSON.parse` accepts and a recursive walk (or `JSON.stringify`) overflows the stack on.
 */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, depth] = item;
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

export const UserMetadataSchema = z
  .object({
    customerJobRef: z
      .string()
      .max(CUSTOMER_JOB_REF_MAX, { message: `customerJobRef must be at most ${CUSTOMER_JOB_REF_MAX} characters` })
      .regex(/^[A-Za-z0-9_-]+$/, { message: "customerJobRef may contain only letters, digits, hyphen and underscore" })
      .optional(),
  })
  .catchall(z.unknown())
  // Depth first, and aborting: the size rule serialises the value, which a deep one would overflow.
  .refine((v) => !jsonDepthExceeds(v, USER_METADATA_MAX_DEPTH), {
    ...custom("tooDeep", `userMetadata may nest at most ${USER_METADATA_MAX_DEPTH} levels`),
    abort: true,
  })
  .refine(
    (v) => JSON.stringify(v).length <= USER_METADATA_MAX_BYTES,
    custom("tooBig", `userMetadata must be at most ${USER_METADATA_MAX_BYTES / 1024} KiB as JSON`),
  );

/**
 * An absolute http(s) URL of at most `maxChars`; whether plain http is allowed, and which hosts, is
 * decided later against settings and the outbound-address rules (loopback only on local stacks).
 */
export const httpUrlSchema = (maxChars: number, message: string) =>
  z
    .string()
    .max(maxChars)
    .refine(
      (v) => {
        try {
          const u = new URL(v);
          return u.protocol === "https:" || u.protocol === "http:";
        } catch {
          return false;
        }
      },
      custom("invalidFormat", message),
    );

export const WebhookUrlSchema = httpUrlSchema(2048, "webhookUrl must be an absolute URL starting with https://");

export const Id = (prefix: string) =>
  z
    .string({ message: "required" })
    .min(1, { message: "must not be empty", abort: true })
    .max(128)
    .refine((v) => v.startsWith(prefix), custom("invalidFormat", `must be an id starting with ${prefix}`));

/** Object keys: no leading slash, no `..` segments, no empty segments, printable. */
export const OutputPrefixSchema = z
  .string()
  .min(1)
  .max(512)
  .refine((v) => !v.startsWith("/"), custom("leadingSlash", "outputPrefix must be relative: no leading slash"))
  .refine((v) => !v.split("/").includes(".."), custom("dotDotSegment", "outputPrefix must not contain `..` segments"))
  .refine(
    (v) => !v.replace(/^\/+/, "").split("/").slice(0, -1).includes(""),
    custom("emptySegment", "outputPrefix must not contain empty path segments"),
  )
  .refine((v) => !/[\u0000-\u001f\u007f\\]/.test(v), custom("invalidFormat", "outputPrefix contains control characters or backslashes"));

/**
 * Whether a key has a `.` or `..` path segment. A URL carries such a segment as a path step: with
 * path-style addressing `bucket/../other/key` is normalised to `other/key`, another bucket than the
 * one the connection allows (and `a/./b` to `a/b`, another key). No key a client names or a runner
 * reports may have one.
 */
export const hasDotSegment = (key: string): boolean => key.split("/").some((s) => s === "." || s === "..");

/** An object key a client names (a source, a sample, a logo): printable, without dot segments. */
export const ObjectKeySchema = z
  .string()
  .min(1)
  .max(1024)
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), custom("invalidFormat", "object keys must not contain control characters"))
  .refine((v) => !hasDotSegment(v), custom("dotSegment", "object keys must not contain `.` or `..` path segments"));

/** ISO 639 language, optionally a region (`pt-BR`, `es-419`) or script (`zh-Hant`). */
export const LANGUAGE_CODE = /^[a-z]{2,3}(-([A-Za-z]{2}|[A-Za-z]{4}|\d{3}))?$/;
export const LanguageCodeSchema = z
  .string()
  .regex(LANGUAGE_CODE, { message: "must be a language code such as `en`, `pt-BR` or `es-419`, not a display name" });

export const SOURCE_LAYERS = ["current", "glossary", "raw"] as const;

export const s3Source = {
  sourceType: z.literal("s3_direct").optional(),
  connectionId: z.string().min(1).max(128).optional(),
  bucket: z.string().min(1).max(255).optional(),
  sourceKey: ObjectKeySchema.optional(),
};

/**
 * A bucket job's source and output prefix as the job stores them (the services' `stored` schemas):
 * the connection, bucket and key it reads, the prefix as sent and the one create resolved.
 */
export const storedBucketSource = {
  sourceType: z.literal("s3_direct"),
  connectionId: z.string().min(1),
  bucket: z.string().min(1),
  sourceKey: z.string().min(1),
  outputPrefix: z.string().optional(),
  resolvedOutputPrefix: z.string(),
};

/**
 * How a job tells speakers apart (dubbing, transcription): off, or bounds on how many speakers the
 * recording holds (1–32, min ≤ max). Absent fields: the engine decides.
 */
export const DiarizationOptionsSchema = z
  .strictObject({
    enabled: z.boolean().optional(),
    minSpeakers: z.number().int().min(1).max(32).optional(),
    maxSpeakers: z.number().int().min(1).max(32).optional(),
  })
  .refine(
    (d) => d.minSpeakers === undefined || d.maxSpeakers === undefined || d.minSpeakers <= d.maxSpeakers,
    custom("minAboveMax", "minSpeakers must not exceed maxSpeakers"),
  );

/** Most terms a job's `options.vocabulary` may pass to the recogniser, and the longest term. */
export const VOCABULARY_MAX_TERMS = 100;
export const VOCABULARY_TERM_MAX_CHARS = 50;

/**
 * Words the recogniser should expect (names, products, jargon), passed to the engine itself
 * (gpu-runner/engines/speech: a prompt, a boost list or dictionary entries), not only applied after.
 */
export const VocabularySchema = z
  .array(z.string().trim().min(1).max(VOCABULARY_TERM_MAX_CHARS))
  .max(VOCABULARY_MAX_TERMS, { message: `at most ${VOCABULARY_MAX_TERMS} vocabulary terms` });
