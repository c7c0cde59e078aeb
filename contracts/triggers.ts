import { z } from "zod";

/**
 * Upload triggers (issue 26): a storage connection names prefixes of its buckets and the preset
 * whose workflow starts for each object created there, once per object version. Events arrive as
 * S3 event notifications (AWS, MinIO, R2's own notification messages through a Queue).
 */

export const TRIGGERS_PER_CONNECTION_MAX = 10;

export const TriggerSchema = z.strictObject({
  bucket: z.string().min(1).max(63),
  /** Objects whose key starts with this (may be ""); keys under `_media-jobs/` never trigger. */
  prefix: z.string().max(512),
  /** Only keys ending with one of these (case-insensitive), when given: `[".mp4", ".mov"]`. */
  suffixes: z.array(z.string().min(1).max(32)).max(20).optional(),
  presetId: z.string().min(1).max(64),
  enabled: z.boolean().optional(),
});
export type Trigger = z.infer<typeof TriggerSchema>;

/** As stored: `enabled` filled in. */
export type StoredTrigger = Omit<Trigger, "enabled"> & { enabled: boolean };

export const TriggersSchema = z
  .array(TriggerSchema)
  .max(TRIGGERS_PER_CONNECTION_MAX, { message: `at most ${TRIGGERS_PER_CONNECTION_MAX} triggers per connection` });

/**
 * One record of an S3 event notification (the AWS shape MinIO and s3rver also send). Only what the
 * trigger reads is checked; the rest passes through.
 */
export const S3EventRecordSchema = z.looseObject({
  eventName: z.string().max(128),
  eventTime: z.string().max(64).optional(),
  s3: z.looseObject({
    bucket: z.looseObject({ name: z.string().min(1).max(63) }),
    object: z.looseObject({
      /** URL-encoded (form encoding, `+` for a space) in AWS's and MinIO's notifications. */
      key: z.string().min(1).max(2048),
      size: z.number().int().nonnegative().optional(),
      eTag: z.string().max(128).optional(),
      versionId: z.string().max(1024).optional(),
      sequencer: z.string().max(128).optional(),
    }),
  }),
});
export type S3EventRecord = z.infer<typeof S3EventRecordSchema>;

export const S3EventNotificationSchema = z.looseObject({
  Records: z.array(S3EventRecordSchema).max(100),
});

/**
 * A message of R2's event notifications (Cloudflare's documented shape for `object-create`), sent
 * to a Queue this Worker consumes.
 */
export const R2EventMessageSchema = z.looseObject({
  account: z.string().optional(),
  action: z.string().max(64),
  bucket: z.string().min(1).max(63),
  object: z.looseObject({ key: z.string().min(1).max(2048), size: z.number().optional(), eTag: z.string().optional() }),
  eventTime: z.string().optional(),
});
export type R2EventMessage = z.infer<typeof R2EventMessageSchema>;

/**
 * Whether a key falls under a trigger: its bucket and prefix, one of its suffixes; never the
 * platform's own scratch, nor what jobs write under the connection's default output prefix (their
 * clips and dubs would otherwise start workflows of their own, without end).
 */
export function triggerMatches(t: StoredTrigger, bucket: string, key: string, defaultOutputPrefix: string): boolean {
  if (!t.enabled || t.bucket !== bucket || !key.startsWith(t.prefix) || key.startsWith("_media-jobs/")) return false;
  if (key.startsWith(`${defaultOutputPrefix.replace(/\/$/, "")}/`)) return false;
  if (!t.suffixes || t.suffixes.length === 0) return true;
  const lower = key.toLowerCase();
  return t.suffixes.some((s) => lower.endsWith(s.toLowerCase()));
}
