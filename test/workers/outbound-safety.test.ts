import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { Job } from "../../contracts/job";
import { storageEndpointRefusal } from "../../worker/platform/outbound-url";
import { call, expectError } from "./helpers/api";
import { patchSettings, transcriptionBody } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * URLs the service would call on a customer's behalf (webhook receivers, storage endpoints) are
 * refused at create when they name an address inside a network. Nothing here connects anywhere:
 * each refusal happens before any request would be made.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
});

const REFUSED = [
  "https://127.0.0.1/hook",
  "https://localhost/hook",
  "https://10.1.2.3/hook",
  "https://172.20.0.5/hook",
  "https://192.168.0.10/hook",
  "https://169.254.169.254/latest/meta-data/",
  "https://100.64.1.1/hook",
  "https://[fd00::5]/hook",
  "https://[fe80::1]/hook",
  "https://[::]/hook",
  "https://0.0.0.0/hook",
  "https://2130706433/hook",
  "https://0x7f000001/hook",
  "https://[::ffff:169.254.169.254]/hook",
  "https://metadata.google.internal/hook",
];

async function createJobWithWebhook(webhookUrl: string) {
  const key = await putSource(`${unique("in")}/hook.mp4`);
  return call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: transcriptionBody(t, key, { webhookUrl }) });
}

describe("webhook URLs", () => {
  it.each(REFUSED)("a job's webhookUrl %s is refused with 422 privateAddress", async (url) => {
    const res = await createJobWithWebhook(url);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "webhookUrl", issue: "privateAddress" }]);
    expect(res.body.error?.message).toContain("connects only to public hosts");
  });

  it("a job's webhookUrl on a public host is accepted", async () => {
    expect((await createJobWithWebhook("https://hooks.example.com/media")).status).toBe(201);
  });

  it("a project's webhook URL naming a private address is refused, at creation and on update", async () => {
    const created = await call("POST", "/v1/projects", {
      key: t.workspaceKey,
      body: { name: unique("p"), webhookUrl: "https://192.168.1.1/hook" },
    });
    expectError(created, 422, "validationError");
    expect(created.body.error?.details).toEqual([{ path: "webhookUrl", issue: "privateAddress" }]);
    const updated = await call("PATCH", `/v1/projects/${t.projectId}`, {
      key: t.workspaceKey,
      body: { webhookUrl: "https://169.254.169.254/" },
    });
    expectError(updated, 422, "validationError");
  });

  it("on a local stack whose settings allow it, plain http to loopback is still accepted", async () => {
    await patchSettings({ webhooks: { allowLoopbackHttp: true } });
    try {
      expect((await createJobWithWebhook("http://127.0.0.1:9/hook")).status).toBe(201);
      expectError(await createJobWithWebhook("http://10.0.0.1:9/hook"), 422, "validationError");
    } finally {
      await patchSettings({ webhooks: { allowLoopbackHttp: false } });
    }
  });
});

describe("storage connection endpoints", () => {
  const connection = (endpoint: string) => {
    const s3 = inject("s3");
    return call("POST", "/v1/storage-connections", {
      key: t.projectKey,
      body: {
        name: unique("conn"),
        endpoint,
        region: s3.region,
        buckets: ["media-test"],
        accessKeyId: s3.accessKeyId,
        secretAccessKey: s3.secretAccessKey,
      },
    });
  };

  // Loopback is the local stack's own S3 server, allowed here (ENVIRONMENT=local); see the rule below for production.
  const LOCAL_LOOPBACK = new Set(["127.0.0.1", "localhost"]);
  const nonLoopback = [
    ...new Set(
      REFUSED.map((u) => new URL(u))
        .filter((u) => !LOCAL_LOOPBACK.has(u.hostname))
        .map((u) => u.origin),
    ),
  ];

  it.each(nonLoopback)("an endpoint at %s is refused with 422 privateAddress, before any request to it", async (endpoint) => {
    const res = await connection(endpoint);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "endpoint", issue: "privateAddress" }]);
  });

  it("off a local stack, loopback endpoints are refused too, in every spelling", () => {
    for (const endpoint of ["https://127.0.0.1", "https://localhost:9000", "https://2130706433", "https://0x7f000001", "https://[::1]"]) {
      expect(storageEndpointRefusal(endpoint, "production")?.issue).toBe("privateAddress");
    }
    expect(storageEndpointRefusal("https://s3.eu-west-1.amazonaws.com", "production")).toBeNull();
    expect(storageEndpointRefusal("http://s3.example.com", "production")?.issue).toBe("httpsRequired");
  });

  it("on a local stack the loopback S3 server is accepted (as every other test here relies on)", async () => {
    expect((await connection(inject("s3").endpoint)).status).toBe(201);
  });

  it("an endpoint that does not answer as S3 reads the same as one that refuses: nothing says whether a host answered", async () => {
    // A loopback port nobody listens on, and the local S3 server with a bucket it has not: only an S3 answer is named.
    const closed = await connection("http://127.0.0.1:1");
    expectError(closed, 422, "validationError");
    expect(closed.body.error?.message).toBe(
      "could not verify bucket media-test at the endpoint: check the endpoint, region, credentials and bucket name",
    );
  });
});
