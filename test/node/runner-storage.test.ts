import { describe, expect, it } from "vitest";
import type { StorageGrant } from "../../contracts/runner-protocol";
import { S3Client } from "../../contracts/s3-client";
import { openStorage, type Resolver } from "../../gpu-runner/storage";
import { StepFailure } from "../../contracts/step-failure";
import { rejectionOf } from "../support/rejection";

/**
 * The runner checks the addresses a storage endpoint resolves to before it connects. Resolution is
 * injected: these tests never resolve a real name nor open a connection.
 */

const grant = (endpoint: string): StorageGrant => ({
  connectionId: "stc_t",
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  accessKeyId: "k",
  secretAccessKey: "s",
  bucket: "b",
});
const resolvesTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses;

describe("the runner's storage endpoint check", () => {
  it("a public name that resolves to a private address is refused, non-retryably", async () => {
    const err = await rejectionOf(
      openStorage(grant("https://s3.customer.example"), { allowLoopback: false, resolve: resolvesTo("10.0.0.7") }),
      StepFailure,
    );
    expect(err).toMatchObject({ code: "storage_endpoint_refused", retryable: false });
    expect(String((err as Error).message)).toContain("non-public address (private)");
  });

  it("one private address among public ones is enough to refuse", async () => {
    const err = await rejectionOf(
      openStorage(grant("https://s3.customer.example"), { allowLoopback: false, resolve: resolvesTo("93.184.216.34", "169.254.169.254") }),
      StepFailure,
    );
    expect(err).toMatchObject({ code: "storage_endpoint_refused" });
  });

  it("a name that resolves to loopback is refused off a local stack", async () => {
    const err = await rejectionOf(
      openStorage(grant("https://s3.customer.example"), { allowLoopback: false, resolve: resolvesTo("127.0.0.1") }),
      StepFailure,
    );
    expect(err).toMatchObject({ code: "storage_endpoint_refused" });
  });

  it("a loopback literal is refused off a local stack and allowed on one", async () => {
    await expect(openStorage(grant("http://127.0.0.1:9000"), { allowLoopback: false })).rejects.toMatchObject({
      code: "storage_endpoint_refused",
    });
    expect(await openStorage(grant("http://127.0.0.1:9000"), { allowLoopback: true })).toBeInstanceOf(S3Client);
  });

  it("a local stack still refuses private and link-local endpoints", async () => {
    await expect(openStorage(grant("http://192.168.1.20:9000"), { allowLoopback: true })).rejects.toMatchObject({
      code: "storage_endpoint_refused",
    });
    await expect(
      openStorage(grant("https://s3.customer.example"), { allowLoopback: true, resolve: resolvesTo("169.254.169.254") }),
    ).rejects.toMatchObject({ code: "storage_endpoint_refused" });
  });

  it("a public name with public addresses gets a client", async () => {
    expect(
      await openStorage(grant("https://s3.customer.example"), {
        allowLoopback: false,
        resolve: resolvesTo("93.184.216.34", "2606:4700:4700::1111"),
      }),
    ).toBeInstanceOf(S3Client);
  });

  it("a name that does not resolve fails retryably with the same words whatever the resolver said", async () => {
    const failing: Resolver = async () => {
      throw new Error("ENOTFOUND internal-dns-detail");
    };
    const err = await rejectionOf(
      openStorage(grant("https://s3.customer.example"), { allowLoopback: false, resolve: failing }),
      StepFailure,
    );
    expect(err).toMatchObject({
      code: "processing_failed",
      retryable: true,
      message: "the storage endpoint s3.customer.example could not be resolved",
    });
  });
});
