import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../contracts/ids";
import { blobOwners } from "../../worker/maintenance/blob-owners";
import { CLIPS_BLOB_KIND } from "../../worker/services/clip-generation/store";
import { DUBBING_BLOB_KIND } from "../../worker/services/dubbing/store";
import { METADATA_BLOB_KIND } from "../../worker/services/metadata/store";
import { SUMMARY_BLOB_KIND } from "../../worker/services/summarization/store";
import { THUMBNAILS_BLOB_KIND } from "../../worker/services/thumbnail/store";
import { sweepOrphans } from "../../worker/storage/blob-sweep";
import { blobKey, blobStore } from "../../worker/storage/blobs";
import { seedServiceRecords } from "./helpers/records";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript } from "./helpers/transcripts";

/**
 * The orphan sweep over the records' kinds (worker/maintenance/blob-owners.ts): an object a record
 * points at stays; one no record points at (a crash between the object and its row, a pointer that
 * moved on) goes.
 */

const store = blobStore(env.BLOBS);
let t: Tenant;
let txt: string;
/** Per kind: the record (owner) id and the SQL that points it at a key. */
let owners: Record<string, { ownerId: string; point: string }>;

beforeAll(async () => {
  t = await createTenant();
  const transcript = await completedTranscript(t, 2);
  txt = transcript.textSourceId;
  const ids = await seedServiceRecords(t.projectId, txt, transcript.jobId);
  owners = {
    [CLIPS_BLOB_KIND]: { ownerId: ids.clipGenerationId, point: "UPDATE clip_generations SET result_key = ?1 WHERE id = ?2" },
    [DUBBING_BLOB_KIND]: { ownerId: ids.dubbingId, point: "UPDATE dubbings SET result_key = ?1 WHERE id = ?2" },
    [SUMMARY_BLOB_KIND]: { ownerId: ids.summarizationId, point: "UPDATE summarizations SET result_key = ?1 WHERE id = ?2" },
    [METADATA_BLOB_KIND]: { ownerId: txt, point: "UPDATE transcripts SET metadata_key = ?1 WHERE id = ?2" },
    [THUMBNAILS_BLOB_KIND]: {
      ownerId: txt,
      point: `UPDATE transcripts SET thumbnail_runs = json_array(json_object('runId', 'job_run', 'key', ?1, 'covers', 1, 'frames', 0)) WHERE id = ?2`,
    },
  };
});

describe("the sweep over records' objects", () => {
  it("keeps every object a record points at and removes those no record points at, of every record kind", async () => {
    const live: string[] = [];
    const orphans: string[] = [];
    for (const [kind, { ownerId, point }] of Object.entries(owners)) {
      const pointed = blobKey(t.projectId, kind, ownerId, "result");
      const movedPast = blobKey(t.projectId, kind, ownerId, "result");
      const ownerless = blobKey(t.projectId, kind, newId("job"), "result");
      for (const key of [pointed, movedPast, ownerless]) await store.put(key, { kind });
      await env.DB.prepare(point).bind(pointed, ownerId).run();
      live.push(pointed);
      orphans.push(movedPast, ownerless);
    }
    const swept = await sweepOrphans(env.BLOBS, store, blobOwners(env), {
      now: new Date(Date.now() + 3_600_000),
      graceMs: 60_000,
      maxObjects: 10_000,
    });
    expect(swept.deleted.sort()).toEqual(orphans.sort());
    for (const key of live) expect(await env.BLOBS.head(key), key).not.toBeNull();
    for (const key of orphans) expect(await env.BLOBS.head(key), key).toBeNull();
  });
});
