import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { projectStorageGrant } from "../../worker/storage/scratch";
import { b64decode, b64encode, SEAL_PURPOSES, seal, unseal } from "../../worker/platform/crypto";
import { createTenant, type Tenant } from "./helpers/tenant";

/**
 * Secrets at rest (review L8): each sealed value names its key (`v1.<kid>.…`, so keys can rotate)
 * and is bound to its purpose and row by AES-GCM associated data, so a value copied to another row
 * or column does not open. Values sealed before the format existed still open.
 */

const KEY = () => env.ENCRYPTION_KEY;
const connection = (rowId: string) => ({ purpose: SEAL_PURPOSES.connectionSecret, rowId });

/** How values were sealed before this format: base64(iv || ciphertext), no associated data. */
async function legacySeal(keyB64: string, plaintext: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", b64decode(keyB64), "AES-GCM", false, ["encrypt"]);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(plaintext)));
  const out = new Uint8Array(iv.length + ct.length);
  out.set(iv);
  out.set(ct, iv.length);
  return b64encode(out);
}

const otherKey = () => b64encode(crypto.getRandomValues(new Uint8Array(32)));

describe("sealed values", () => {
  it("open for the purpose and row they were sealed for", async () => {
    const sealed = await seal(KEY(), "s3-secret", connection("stc_a"));
    expect(await unseal(KEY(), sealed, connection("stc_a"))).toBe("s3-secret");
  });

  it("carry a version and the key's id: v1.<8 hex>.<base64>", async () => {
    expect(await seal(KEY(), "x", connection("stc_a"))).toMatch(/^v1\.[0-9a-f]{8}\.[A-Za-z0-9+/]+=*$/);
  });

  it("moved to another row, fail to open", async () => {
    const sealed = await seal(KEY(), "s3-secret", connection("stc_a"));
    await expect(unseal(KEY(), sealed, connection("stc_b"))).rejects.toThrow();
  });

  it("moved to another purpose, fail to open", async () => {
    const sealed = await seal(KEY(), "s3-secret", connection("prj_a"));
    await expect(unseal(KEY(), sealed, { purpose: SEAL_PURPOSES.webhookSecret, rowId: "prj_a" })).rejects.toThrow();
  });

  it("sealed under another key, fail to open and name both key ids", async () => {
    const sealed = await seal(otherKey(), "s3-secret", connection("stc_a"));
    await expect(unseal(KEY(), sealed, connection("stc_a"))).rejects.toThrow(
      /under key [0-9a-f]{8}, not the current ENCRYPTION_KEY \([0-9a-f]{8}\)/,
    );
  });

  it("altered, fail to open", async () => {
    const sealed = await seal(KEY(), "s3-secret", connection("stc_a"));
    const [v, kid, body] = sealed.split(".") as [string, string, string];
    const bytes = b64decode(body);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
    await expect(unseal(KEY(), `${v}.${kid}.${b64encode(bytes)}`, connection("stc_a"))).rejects.toThrow();
  });

  it("with the version stripped (posing as the old format), fail to open", async () => {
    const sealed = await seal(KEY(), "s3-secret", connection("stc_a"));
    await expect(unseal(KEY(), sealed.split(".")[2] as string, connection("stc_a"))).rejects.toThrow();
  });

  it("sealed before the format existed still open", async () => {
    expect(await unseal(KEY(), await legacySeal(KEY(), "old-secret"), connection("stc_a"))).toBe("old-secret");
  });
});

describe("sealed values in D1", () => {
  let a: Tenant;
  let b: Tenant;
  beforeAll(async () => {
    [a, b] = await Promise.all([createTenant(), createTenant()]);
  });

  const sealedSecretOf = (connectionId: string) =>
    env.DB.prepare("SELECT secret_access_key_enc AS v FROM storage_connections WHERE id = ?").bind(connectionId).first<{ v: string }>();
  const setSealedSecret = (connectionId: string, v: string) =>
    env.DB.prepare("UPDATE storage_connections SET secret_access_key_enc = ? WHERE id = ?").bind(v, connectionId).run();

  it("a connection's secret copied onto another project's connection row does not open there", async () => {
    const original = (await sealedSecretOf(b.connectionId))?.v as string;
    await setSealedSecret(b.connectionId, (await sealedSecretOf(a.connectionId))?.v as string);
    try {
      await expect(projectStorageGrant(env, b.projectId, b.connectionId, b.bucket)).rejects.toThrow();
    } finally {
      await setSealedSecret(b.connectionId, original);
    }
    expect(await projectStorageGrant(env, b.projectId, b.connectionId, b.bucket)).toMatchObject({ connectionId: b.connectionId });
  });

  it("a connection whose secret was sealed in the old format still works", async () => {
    const current = await projectStorageGrant(env, a.projectId, a.connectionId, a.bucket);
    await setSealedSecret(a.connectionId, await legacySeal(KEY(), current?.secretAccessKey as string));
    expect(await projectStorageGrant(env, a.projectId, a.connectionId, a.bucket)).toEqual(current);
  });
});
