import { describe, expect, it } from "vitest";
import { addressKind, hostRefusal } from "../../contracts/outbound-address";

/**
 * The service connects on a customer's behalf only to public hosts. Every case is classified from
 * the URL text (and the resolved addresses, on the runner): nothing here opens a connection.
 */

const hostOf = (url: string) => new URL(url).hostname;

describe("addresses the service refuses to connect to", () => {
  it.each([
    ["http://127.0.0.1/", "loopback"],
    ["http://127.8.9.10/", "loopback"],
    ["http://[::1]/", "loopback"],
    ["http://localhost/", "internal-name"],
    ["http://api.localhost/", "internal-name"],
    ["http://10.0.0.1/", "private"],
    ["http://172.16.0.1/", "private"],
    ["http://172.31.255.254/", "private"],
    ["http://192.168.1.1/", "private"],
    ["http://169.254.169.254/latest/meta-data/", "link-local"],
    ["http://100.64.0.1/", "cgnat"],
    ["http://100.127.255.254/", "cgnat"],
    ["http://[fc00::1]/", "unique-local"],
    ["http://[fd12:3456::1]/", "unique-local"],
    ["http://[fe80::1]/", "link-local"],
    ["http://0.0.0.0/", "unspecified"],
    ["http://[::]/", "unspecified"],
    ["http://224.0.0.1/", "multicast"],
    ["http://255.255.255.255/", "reserved"],
    ["http://metadata.google.internal/", "internal-name"],
    ["http://printer.local/", "internal-name"],
    ["http://minio:9000/", "internal-name"],
  ])("%s is %s", (url, kind) => {
    expect(addressKind(hostOf(url))).toBe(kind);
    expect(hostRefusal(new URL(url), { allowLoopback: false })).toMatch(/connects only to public hosts/);
  });

  it.each([
    ["decimal", "http://2130706433/", "loopback"],
    ["hex", "http://0x7f000001/", "loopback"],
    ["octal", "http://0177.0.0.1/", "loopback"],
    ["short form", "http://127.1/", "loopback"],
    ["hex private", "http://0xa000001/", "private"],
    ["decimal metadata", "http://2852039166/", "link-local"],
    ["IPv4-mapped IPv6", "http://[::ffff:127.0.0.1]/", "loopback"],
    ["IPv4-mapped IPv6, hex groups", "http://[::ffff:a9fe:a9fe]/", "link-local"],
    ["NAT64", "http://[64:ff9b::a00:1]/", "private"],
    ["6to4", "http://[2002:c0a8:101::1]/", "private"],
    ["trailing dot", "http://localhost./", "internal-name"],
  ])("another spelling (%s) of a refused address is refused too: %s", (_name, url, kind) => {
    expect(addressKind(hostOf(url))).toBe(kind);
  });

  it.each([
    ["dotted", "127.0.0.1", "loopback"],
    ["IPv4-mapped", "::ffff:10.1.2.3", "private"],
    ["IPv6 with zone", "fe80::1%eth0", "link-local"],
    ["public", "93.184.216.34", "public"],
    ["public IPv6", "2606:4700:4700::1111", "public"],
  ])("a resolved address (%s) is classified as DNS returns it: %s", (_name, ip, kind) => {
    expect(addressKind(ip)).toBe(kind);
  });
});

describe("addresses the service may connect to", () => {
  it.each([
    "https://hooks.example.com/media",
    "https://93.184.216.34/",
    "https://[2606:4700:4700::1111]/",
    "https://s3.eu-west-1.amazonaws.com",
    "https://172.32.0.1/",
    "https://100.128.0.1/",
  ])("%s", (url) => {
    expect(hostRefusal(new URL(url), { allowLoopback: false })).toBeNull();
  });

  it("a local stack that allows loopback may reach 127.0.0.1, ::1 and localhost, and still no private address", () => {
    for (const url of ["http://127.0.0.1:9000", "http://[::1]:9000", "http://localhost:9000"])
      expect(hostRefusal(new URL(url), { allowLoopback: true })).toBeNull();
    expect(hostRefusal(new URL("http://10.0.0.5:9000"), { allowLoopback: true })).not.toBeNull();
    expect(hostRefusal(new URL("http://169.254.169.254/"), { allowLoopback: true })).not.toBeNull();
  });
});
