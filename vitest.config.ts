import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { startLexicalEmbeddings } from "./test/support/fakes/lexical-embeddings";

const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
// The Worker's catalog search embeds queries over HTTP: a stand-in model on loopback for the Workers tests.
const embeddings = await startLexicalEmbeddings();

export default defineConfig({
  test: {
    projects: [
      {
        // Worker, Durable Object and queue code, run inside workerd.
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            remoteBindings: false,
            miniflare: {
              bindings: { TEST_MIGRATIONS: migrations, ALLOW_TEST_PIPELINES: "true", EMBEDDINGS_BASE_URL: embeddings.url },
              // Every fetch the Worker makes passes here: loopback (the test S3 server) goes through,
              // anything else (a webhook to a public test host) is answered 502 without a DNS query,
              // so the suite never sends traffic outside loopback.
              outboundService: async (request: Request) => {
                const host = new URL(request.url).hostname;
                if (host === "127.0.0.1" || host === "localhost" || host === "[::1]") {
                  // Miniflare's Request is not Node's: pass its parts on.
                  const body = ["GET", "HEAD"].includes(request.method) ? undefined : await request.arrayBuffer();
                  // The Worker's own fetch decides about redirects: a 3xx goes back to it as it is.
                  const res = await fetch(request.url, { method: request.method, headers: request.headers, body, redirect: "manual" });
                  return new Response(res.body, { status: res.status, statusText: res.statusText, headers: res.headers });
                }
                return new Response(`the test network reaches loopback only, not ${host}`, { status: 502 });
              },
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["test/workers/**/*.test.ts"],
          setupFiles: ["test/workers/setup/apply-migrations.ts"],
          globalSetup: ["test/workers/setup/global-s3.ts", "test/workers/setup/global-hostile.ts"],
          testTimeout: 20_000,
        },
      },
      {
        // The gpu-runner, its protocol, engines against fakes and pure helpers, in Node.
        test: {
          name: "node",
          environment: "node",
          // These files keep no module state between them; reusing workers saves a spawn per file.
          isolate: false,
          include: ["test/node/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // Real media work in Node: ffmpeg and PocketSphinx on the sample recordings. Kept out of the
        // inner loop (`npm run test:unit`) because it is CPU-bound; `npm test` runs it.
        test: {
          name: "media",
          environment: "node",
          include: ["test/media/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The whole local stack: wrangler dev, the local S3 server and real runners.
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 240_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
