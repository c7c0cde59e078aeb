import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { BodyTooLargeError, readAllWithin, readAtMost } from "../../contracts/bounded-read";
import { thumbnailStep } from "../../contracts/services/thumbnail";
import { stepSpec } from "../../contracts/services/types";
import { StepFailure } from "../../contracts/step-failure";
import { handedOverTranscript, MAX_HANDOVER_BYTES } from "../../gpu-runner/services/shared/handover";
import { makeHandlerContext, storageGrant } from "../support/handler-context";
import { hostileServers, type HostileServer } from "../support/hostile-server";
import { rejectionOf } from "../support/rejection";

/**
 * "Read at most N bytes" (contracts/bounded-read.ts), the one helper behind every bounded read of
 * an answer from a customer's server, and the runner's read of a transcript handed over in the
 * customer's bucket, which goes through it.
 */

const start = hostileServers();

/** A stream of `chunks` chunks of `size` bytes, counting how many were pulled and whether it was cancelled. */
function counted(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (seen.pulled === chunks) return c.close();
      seen.pulled += 1;
      c.enqueue(new Uint8Array(size));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

describe("read at most N bytes", () => {
  it("a body within the limit is read whole and complete", async () => {
    const { stream, seen } = counted(4, 256);
    const r = await readAtMost(stream, 1024);
    expect({ bytes: r.bytes.byteLength, complete: r.complete, cancelled: seen.cancelled }).toEqual({
      bytes: 1024,
      complete: true,
      cancelled: false,
    });
  });

  it("a longer body yields the limit's bytes, one chunk past it is pulled, and the rest is cancelled", async () => {
    const { stream, seen } = counted(1_000_000, 256);
    const r = await readAtMost(stream, 1000);
    expect({ bytes: r.bytes.byteLength, complete: r.complete }).toEqual({ bytes: 1000, complete: false });
    // The four chunks that cross the limit, and at most the one the stream queued ahead.
    expect(seen.pulled).toBeLessThanOrEqual(5);
    expect(seen.cancelled).toBe(true);
  });

  it("a declared length over the limit fails before a byte is read", async () => {
    const { stream, seen } = counted(10, 256);
    const res = new Response(stream, { headers: { "content-length": "2560" } });
    const err = await rejectionOf(readAllWithin(res, 1024), BodyTooLargeError);
    expect({ declared: err.declared, seen: err.seen, limit: err.limit }).toEqual({ declared: true, seen: 2560, limit: 1024 });
    expect(seen.cancelled).toBe(true);
  });

  it("a declared length within the limit ends the body there, whatever the server goes on sending", async () => {
    // A raw socket: an HTTP server library would refuse to send past its own Content-Length.
    const server = createServer((socket) => {
      socket.on("error", () => undefined);
      socket.end(`HTTP/1.1 200 OK\r\ncontent-length: 10\r\nconnection: close\r\n\r\n${"x".repeat(100_000)}`);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect((await readAllWithin(res, 1024)).byteLength).toBe(10);
    } finally {
      server.close();
    }
  });
});

/** A clip or thumbnail step whose transcript hand-over lies in `store`'s bucket. */
const handoverContext = (store: HostileServer) =>
  makeHandlerContext({
    input: {
      textSourceId: "txt_test",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: "media",
      sourceKey: "talk.mp4",
      resolvedOutputPrefix: "out/",
      options: { thumbnailCount: 1, nonAiThumbnailCount: 1, ratioWidth: 3, ratioHeight: 2, resolution: 1024 },
      size: { width: 1536, height: 1024 },
      imageModel: null,
    },
    step: stepSpec("thumbnail", thumbnailStep),
    storage: storageGrant({ endpoint: store.url, region: "us-east-1", accessKeyId: "k", secretAccessKey: "s" }, "media"),
    outputs: { fetch_transcription: { transcriptKey: "_media-jobs/scratch/job_test/transcript.json" } },
  });

describe("the transcript handed over in the customer's bucket", () => {
  it("is read within its cap: an object that never ends fails invalid_input, and the store stops sending", async () => {
    const store = await start(() => ({ stream: { bytes: Infinity, headers: { "content-type": "application/json" } } }));
    const ctx = await handoverContext(store);
    try {
      const err = await rejectionOf(handedOverTranscript(ctx), StepFailure);
      expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "invalid_input", retryable: false });
      expect(err.message).toContain(`larger than ${MAX_HANDOVER_BYTES} bytes (64 MiB)`);
      await expect.poll(() => store.seen[0]?.closed).toBe(true);
      expect(store.bytesSent).toBeLessThan(MAX_HANDOVER_BYTES + 16 * 1024 * 1024);
    } finally {
      await ctx.dispose();
    }
  });

  it("a redirect from the store fails redirect_refused", async () => {
    const inside = await start(() => ({ status: 200, body: "{}" }));
    const store = await start(() => ({ redirect: `${inside.url}/transcript.json` }));
    const ctx = await handoverContext(store);
    try {
      const err = await rejectionOf(handedOverTranscript(ctx), StepFailure);
      expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "redirect_refused", retryable: false });
      expect(inside.connections).toBe(0);
    } finally {
      await ctx.dispose();
    }
  });
});
