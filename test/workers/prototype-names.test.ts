import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { expectError } from "./helpers/api";
import { SITE } from "./helpers/console";
import { fakeRunner } from "./helpers/jobs";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript } from "./helpers/transcripts";
import { createJob } from "./helpers/understanding";

/**
 * Names taken from a request (a path segment, a query value) and looked up in the Worker's own
 * tables never reach Object.prototype: `constructor`, `__proto__` and `toString` are unknown names.
 */

const PROTOTYPE_NAMES = ["constructor", "__proto__", "toString", "hasOwnProperty"];

const get = (path: string) => exports.default.fetch(new Request(`${SITE}${path}`, { redirect: "manual" }));

let t: Tenant;

beforeAll(async () => {
  t = await createTenant();
});

describe("console assets and notices", () => {
  it("/console/assets/<a prototype name> is 404, not a JavaScript rendering of Object", async () => {
    for (const name of PROTOTYPE_NAMES) {
      const res = await get(`/console/assets/${name}`);
      const body = await res.text();
      expect(res.status, name).toBe(404);
      expect(body, name).not.toContain("native code");
      expect(res.headers.get("content-type") ?? "", name).not.toMatch(/javascript/);
    }
  });

  it("?done=<a prototype name> shows no notice", async () => {
    for (const name of PROTOTYPE_NAMES) {
      const res = await get(`/console/sign-in?done=${encodeURIComponent(name)}`);
      const html = await res.text();
      expect(res.status, name).toBe(200);
      expect(html, name).not.toContain('class="notice"');
    }
  });
});

describe("runner service calls", () => {
  it("a runner call named after a prototype property is refused as unknown (422 protocolError)", async () => {
    const transcript = await completedTranscript(t, ["hello there"]);
    const job = await createJob(t, "translation", { textSourceId: transcript.textSourceId, targetLanguage: "es" });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
    for (const name of PROTOTYPE_NAMES) {
      const res = await fakeRunner.call(task, name, {});
      expectError(res, 422, "protocolError");
      expect(JSON.stringify(res.body), name).not.toMatch(/ENCRYPTION_KEY|RUNNER_TOKEN|ADMIN_SECRET/);
    }
    await fakeRunner.release(task);
  });
});
