import { describe, expect, it } from "vitest";
import { clientAddressKey } from "../../worker/platform/client-address";

/** The sign-in throttle's address key (worker/platform/client-address.ts): one key per IPv4 address, one per IPv6 /64. */
describe("clientAddressKey", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2::ffff", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::ffff:198.51.100.9", "198.51.100.9"],
    ["64:ff9b::192.0.2.1", "64:ff9b:0:0::/64"],
  ])("%s → %s", (header, key) => {
    expect(clientAddressKey(header)).toBe(key);
  });

  it("two addresses of one /64 share a key; the next /64 does not", () => {
    expect(clientAddressKey("2001:db8:a:b::1")).toBe(clientAddressKey("2001:db8:a:b:ffff:ffff:ffff:ffff"));
    expect(clientAddressKey("2001:db8:a:c::1")).not.toBe(clientAddressKey("2001:db8:a:b::1"));
  });

  it.each([undefined, null, "", "unknown", "256.1.1.1", "1.2.3", "1:2:3:4:5:6:7:8:9", "1::2::3", "gggg::1", "203.0.113.7, 10.0.0.1"])(
    "a missing or malformed header (%s) is the one shared key `unknown`",
    (header) => {
      expect(clientAddressKey(header)).toBe("unknown");
    },
  );
});
