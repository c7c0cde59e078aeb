import type { MediaJobs } from "../../client";

/** What the tools share: how to reach the API, and how often a wait polls. */
export interface ToolContext {
  /**
   * The client from the login config or MEDIA_JOBS_URL/KEY, resolved per call: the server starts
   * without a login (each call then answers `notLoggedIn`) and a later `media-jobs login` takes effect.
   */
  connect(): Promise<{ mj: MediaJobs; key: string }>;
  /** A wait's first poll interval (it grows while nothing changes, as `jobs wait`). */
  pollIntervalMs: number;
  /** A wait repeats its last progress notification this often while nothing changes. */
  heartbeatMs: number;
}
