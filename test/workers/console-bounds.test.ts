import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { signedIn, SITE, type Browser } from "./helpers/console";
import { createTenant, type Tenant } from "./helpers/tenant";

/**
 * Request bodies on /console/* (review finding M6): a form is at most 64 KiB, the raw-JSON job form at
 * most the API's 1 MiB; a bigger body is refused with 413 payloadTooLarge before it is read.
 */

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * A urlencoded sign-in form of `total` bytes, produced as it is read, so a test can tell how much of it
 * the Worker pulled: a body refused early is never read to its end.
 */
function streamedForm(total: number) {
  const head = new TextEncoder().encode("email=ada%40example.com&password=");
  const chunk = new TextEncoder().encode("x".repeat(16 * KIB));
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled >= total) return controller.close();
      const next = pulled === 0 ? head : chunk;
      pulled += next.byteLength;
      controller.enqueue(next);
    },
  });
  return { body, pulled: () => pulled };
}

async function post(path: string, body: BodyInit, headers: Record<string, string>) {
  const res = await exports.default.fetch(
    new Request(`${SITE}${path}`, { method: "POST", headers: { origin: SITE, ...headers }, body, redirect: "manual" }),
  );
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const expectTooLarge = (res: { status: number; text: string }, bytes: number) => {
  expect(res.status, res.text.slice(0, 200)).toBe(413);
  expect(JSON.parse(res.text)).toEqual({
    data: null,
    error: { code: "payloadTooLarge", message: `request body exceeds ${bytes} bytes`, details: [] },
    metadata: {},
  });
};

const FORM = { "content-type": "application/x-www-form-urlencoded" };

let t: Tenant;
let admin: Browser;

beforeAll(async () => {
  t = await createTenant();
  ({ browser: admin } = await signedIn(t, "admin"));
});

describe("console forms are at most 64 KiB", () => {
  it("a sign-in form declaring more than 64 KiB is 413 payloadTooLarge in the envelope", async () => {
    const password = "x".repeat(64 * KIB);
    const res = await post("/console/sign-in", new URLSearchParams({ email: "ada@example.com", password }).toString(), FORM);
    expectTooLarge(res, 64 * KIB);
  });

  it("a streamed sign-in form is refused once it passes 64 KiB: the rest is never read", async () => {
    const form = streamedForm(8 * MIB);
    const res = await post("/console/sign-in", form.body, FORM);
    expectTooLarge(res, 64 * KIB);
    expect(form.pulled()).toBeLessThan(MIB);
  });

  it("the refusal still carries the console's page policy and no-store", async () => {
    const res = await post("/console/sign-out", "x".repeat(64 * KIB + 1), FORM);
    expect(res.status).toBe(413);
    expect(res.headers.get("content-security-policy")).toMatch(/^default-src 'none'; script-src 'self'/);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("a signed-in form (the key form) over 64 KiB is 413 as well", async () => {
    const body = new URLSearchParams({ _csrf: admin.csrfToken, name: "x".repeat(64 * KIB) }).toString();
    expectTooLarge(await post("/console/keys", body, { ...FORM, cookie: admin.cookie }), 64 * KIB);
  });
});

describe("the raw-JSON job form keeps the API's 1 MiB", () => {
  const rawForm = (json: string) => {
    const form = new FormData();
    form.set("_csrf", admin.csrfToken);
    form.set("body", json);
    return form;
  };

  it("takes a job body over 64 KiB (the API answers it)", async () => {
    // Valid JSON the API refuses on its merits: the form was read, forwarded and answered in place.
    const json = JSON.stringify({ serviceType: "transcription", input: {}, padding: "x".repeat(200 * KIB) });
    const res = await post("/console/submit/json", rawForm(json), { cookie: admin.cookie });
    expect(res.status).toBe(422);
    expect(res.text).toContain("<html");
  });

  it("a raw-JSON form over 1 MiB is 413", async () => {
    const res = await post("/console/submit/json", rawForm("x".repeat(MIB + 1)), { cookie: admin.cookie });
    expectTooLarge(res, MIB);
  });
});
