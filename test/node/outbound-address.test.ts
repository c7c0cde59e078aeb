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

describe("IANA's special-purpose ranges are not public", () => {
  it.each([
    ["TEST-NET-1", "192.0.2.10", "documentation"],
    ["TEST-NET-2", "198.51.100.7", "documentation"],
    ["TEST-NET-3", "203.0.113.200", "documentation"],
    ["the deprecated 6to4 relay anycast", "192.88.99.1", "reserved"],
    ["IETF protocol assignments", "192.0.0.170", "reserved"],
    ["benchmarking", "198.19.255.1", "reserved"],
    ["site-local IPv6", "fec0::1", "site-local"],
    ["site-local IPv6, upper end", "feff:ffff::1", "site-local"],
    ["local-use NAT64", "64:ff9b:1::a00:1", "reserved"],
    ["local-use NAT64 embedding a public address", "64:ff9b:1:fffe::5db8:d822", "reserved"],
    ["SIIT IPv4-translated, loopback", "::ffff:0:7f00:1", "loopback"],
    ["SIIT IPv4-translated, metadata", "::ffff:0:169.254.169.254", "link-local"],
    ["SIIT IPv4-translated, private", "::ffff:0:a00:5", "private"],
    ["IPv6 documentation", "2001:db8::1", "documentation"],
    ["IPv6 documentation (RFC 9637)", "3fff:abc::1", "documentation"],
    ["Teredo", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
    ["IPv6 benchmarking", "2001:2::1", "reserved"],
    ["ORCHIDv2", "2001:20::1", "reserved"],
    ["discard-only", "100::1", "reserved"],
    ["SRv6 SIDs", "5f00::1", "reserved"],
    ["unassigned IPv6 outside 2000::/3", "4000::1", "reserved"],
  ])("%s (%s) is %s", (_name, ip, kind) => {
    expect(addressKind(ip)).toBe(kind);
    expect(hostRefusal(new URL(`http://${ip.includes(":") ? `[${ip}]` : ip}/`), { allowLoopback: false })).toMatch(
      /connects only to public hosts/,
    );
  });

  it.each([
    ["just past TEST-NET-1", "192.0.3.1"],
    ["just past TEST-NET-3", "203.0.114.1"],
    ["SIIT embedding a public address", "::ffff:0:5db8:d822"],
    ["global NAT64 embedding a public address", "64:ff9b::5db8:d822"],
    ["global unicast just past 2001::/23", "2001:200::1"],
    ["global unicast just past the RFC 9637 block", "3fff:1000::1"],
  ])("%s (%s) stays public", (_name, ip) => {
    expect(addressKind(ip)).toBe("public");
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
