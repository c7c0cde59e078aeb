import { describe, expect, it } from "vitest";
import type { StorageGrant } from "../../contracts/runner-protocol";
import { StepFailure } from "../../contracts/step-failure";
import { guardedFetch, type Resolver } from "../../gpu-runner/net/guarded-fetch";
import { openStorage } from "../../gpu-runner/storage";
import { HostileServer, hostileServers } from "../support/hostile-server";
import { rejectionOf } from "../support/rejection";

/**
 * The runner checks the address of every connection it makes to a customer's server when it makes
 * it, so the address checked is the address connected to. Names are resolved by an injected
 * resolver (no real DNS); a listener on 127.0.0.1 stands in for a host inside the operator's network
 * and must receive nothing when the guard refuses.
 */

const start = hostileServers();

const listener = () => start();

const portOf = (s: HostileServer) => new URL(s.url).port;

const resolver =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const found = table[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };

const grant = (endpoint: string, forcePathStyle: boolean): StorageGrant => ({
  connectionId: "stc_t",
  endpoint,
  region: "us-east-1",
  forcePathStyle,
  accessKeyId: "k",
  secretAccessKey: "s",
  bucket: "media",
});

describe("the runner's connect-time address check", () => {
  it("a virtual-hosted bucket whose <bucket>.<host> resolves to a private address is refused before any connection", async () => {
    const inside = await listener();
    const resolve = resolver({ "s3.customer.example": ["93.184.216.34"], "media.s3.customer.example": ["10.0.0.7"] });
    const err = await rejectionOf(
      openStorage(grant(`http://s3.customer.example:${portOf(inside)}`, false), { allowLoopback: false, resolve }),
      StepFailure,
    );
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "storage_endpoint_refused", retryable: false });
    expect(err.message).toContain("media.s3.customer.example");
    expect(inside.connections).toBe(0);
  });

  it("a name that resolved to a public address when checked and to loopback when connecting is refused at the connection", async () => {
    const inside = await listener();
    // DNS rebinding: the first answer (the early check) is public, every later one (the connection's) points inside.
    let asked = 0;
    const resolve: Resolver = async () => (asked++ === 0 ? ["93.184.216.34"] : ["127.0.0.1"]);
    const s3 = await openStorage(grant(`http://s3.customer.example:${portOf(inside)}`, true), { allowLoopback: false, resolve });
    const err = await rejectionOf(s3.getObject("media", "talk.mp4"), StepFailure);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "storage_endpoint_refused", retryable: false });
    expect(err.message).toContain("(loopback)");
    expect(asked).toBe(2);
    expect(inside.connections).toBe(0);
  });

  it("an IP literal is checked before connecting, with no lookup", async () => {
    const inside = await listener();
    const resolve: Resolver = async () => {
      throw new Error("an IP literal is never looked up");
    };
    const err = await rejectionOf(guardedFetch({ allowLoopback: false, resolve })(`${inside.url}/latest/meta-data/`), StepFailure);
    expect(err.code).toBe("storage_endpoint_refused");
    expect(inside.connections).toBe(0);
  });

  it("one private address among a name's public ones is enough to refuse the connection", async () => {
    const inside = await listener();
    const resolve = resolver({ "files.customer.example": ["93.184.216.34", "169.254.169.254"] });
    const err = await rejectionOf(
      guardedFetch({ allowLoopback: true, resolve })(`http://files.customer.example:${portOf(inside)}/x`),
      StepFailure,
    );
    expect(err.message).toContain("(link-local)");
    expect(inside.connections).toBe(0);
  });

  it("a name that only resolves inside a network is refused without a lookup", async () => {
    const resolve: Resolver = async () => {
      throw new Error("never asked");
    };
    const err = await rejectionOf(guardedFetch({ allowLoopback: false, resolve })("http://minio:9000/media/x"), StepFailure);
    expect(err.message).toContain("(internal-name)");
  });

  it("the connection goes to the address the guard resolved and allowed (loopback on a local stack)", async () => {
    const local = await listener();
    const resolve = resolver({ "files.customer.example": ["127.0.0.1"] });
    const res = await guardedFetch({ allowLoopback: true, resolve })(`http://files.customer.example:${portOf(local)}/x`);
    expect(await res.text()).toBe("listening");
    expect(local.seen[0]?.headers.host).toBe(`files.customer.example:${portOf(local)}`);
  });

  it("follows no redirect unless asked: the 3xx itself is the answer", async () => {
    const target = await listener();
    const customer = await start(() => ({ redirect: `${target.url}/inside` }));
    const res = await guardedFetch({ allowLoopback: true })(`${customer.url}/x`);
    expect(res.status).toBe(302);
    expect(target.connections).toBe(0);
  });
});
