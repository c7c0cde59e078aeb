import { flattenOutputUrls, redactOutputUrls, redactUrl, type OutputUrls } from "../../../contracts/presigned";
import { validationError } from "../../errors";
import { presignedRecord } from "../../storage/presigned";
import type { CreateContext, Resolved } from "../types";
import { checkPresignedUrls, probePresignedUrls } from "./presigned-checks";

/**
 * What every service's `s3_presigned` create does with the URLs, in one place (docs/api.md,
 * "Presigned sources and outputs"): the checks that need no connection now, the probes as the
 * create's `probe`, the URLs redacted for the job's input, and the full ones sealed with the job
 * (`job_secrets`) for the runner's presigned grant.
 */

export interface PresignedRequest {
  /** Absent for a service that reads no source (translation). */
  sourceUrl?: string | undefined;
  outputUrls: OutputUrls;
}

export interface PresignedResolution {
  /** The request's URLs as the job stores and shows them: query strings cut off. */
  redacted: { sourceUrl?: string; outputUrls: OutputUrls };
  /** The source URL's path as its object key reads (`%20` → space), for extension checks and the display name; null without a source. */
  sourcePath: string | null;
  probe: () => Promise<void>;
  record: NonNullable<Resolved["record"]>;
}

/** The URL's path decoded; a malformed escape is kept as sent. */
function decodedPath(url: string): string {
  const path = new URL(url).pathname;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Checks the URLs (scheme, host, stated expiry; no connection) and prepares the rest. `record`
 * seals the URLs with the job; a service with a record of its own runs both (`withRecord`).
 */
export function resolvePresigned(ctx: CreateContext, req: PresignedRequest): PresignedResolution {
  const urls = { sourceUrl: req.sourceUrl ?? null, outputUrls: flattenOutputUrls(req.outputUrls) };
  checkPresignedUrls(urls, ctx.env.ENVIRONMENT);
  const secret = presignedRecord(ctx.db, ctx.env.ENCRYPTION_KEY, ctx.projectId, urls);
  return {
    redacted: {
      ...(req.sourceUrl !== undefined ? { sourceUrl: redactUrl(req.sourceUrl) } : {}),
      outputUrls: redactOutputUrls(req.outputUrls),
    },
    sourcePath: req.sourceUrl !== undefined ? decodedPath(req.sourceUrl) : null,
    probe: () => probePresignedUrls(urls, ctx.settings.runner.maxSourceBytes),
    record: { statements: secret.statements, remove: secret.remove },
  };
}

/** The sealed URLs and a service's own record, inserted (and removed) together. */
export function withRecord(presigned: PresignedResolution, own?: Resolved["record"]): NonNullable<Resolved["record"]> {
  if (!own) return presigned.record;
  return {
    statements: async (jobId, now) => [...(await presigned.record.statements(jobId, now)), ...(await own.statements(jobId, now))],
    remove: async () => {
      await own.remove();
      await presigned.record.remove();
    },
  };
}

/**
 * The variable-count scheme (clips, thumbnails): file *n* of a kind goes to the *n*-th URL of that
 * kind's list, so each list must hold exactly as many URLs as the job may write files of its kind:
 * fewer could not take every file, and more would only be probed (a PUT to each, from the
 * operator's addresses) and never used.
 */
export function requireOutputUrlCounts(
  outputUrls: Readonly<Record<string, readonly string[]>>,
  needed: Readonly<Record<string, { count: number; limit: string }>>,
): void {
  for (const [kind, { count: n, limit }] of Object.entries(needed)) {
    const k = outputUrls[kind]?.length ?? 0;
    if (k < n)
      throw validationError(`outputUrls.${kind} holds ${k} URLs; the job may write up to ${n}`, [
        { path: `input.outputUrls.${kind}`, issue: "tooFewOutputUrls" },
      ]);
    if (k > n)
      throw validationError(`outputUrls.${kind} holds ${k} URLs; the job writes at most ${n} (${limit}): send ${n}`, [
        { path: `input.outputUrls.${kind}`, issue: "tooManyOutputUrls" },
      ]);
  }
}
