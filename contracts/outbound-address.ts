import type { Settings } from "./settings";

/**
 * Where the service may connect on a customer's behalf (webhook receivers, storage endpoints): only
 * public addresses. A URL naming a loopback, private (RFC 1918), link-local (incl. cloud metadata
 * at 169.254.169.254), site-local, CGNAT, unique-local IPv6, unspecified, multicast, documentation
 * or otherwise reserved address (IANA's special-purpose registries; IPv6 outside 2000::/3), or a
 * name that only resolves inside a network (`localhost`, `*.local`, `*.internal`, single labels),
 * is refused. Pure functions over the WHATWG URL parser, which already normalises the other
 * spellings of an IPv4 address (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`); shared by the
 * Worker (at create) and the runner (on the addresses a name resolves to).
 */

export type AddressKind =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "site-local"
  | "cgnat"
  | "unique-local"
  | "unspecified"
  | "multicast"
  | "documentation"
  | "reserved"
  | "internal-name";

type V4 = [number, number, number, number];

function parseV4(host: string): V4 | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number) as V4;
  return parts.every((p) => p <= 255) ? parts : null;
}

function kindOfV4([a, b, c]: V4): AddressKind {
  if (a === 0) return "unspecified";
  if (a === 127) return "loopback";
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return "private";
  if (a === 169 && b === 254) return "link-local";
  if (a === 100 && b >= 64 && b <= 127) return "cgnat";
  if (a >= 224 && a <= 239) return "multicast";
  // TEST-NET-1, -2 and -3 (RFC 5737).
  if ((a === 192 && b === 0 && c === 2) || (a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113))
    return "documentation";
  // 192.0.0.0/24 (protocol assignments), 192.88.99.0/24 (the deprecated 6to4 relay anycast),
  // 198.18.0.0/15 (benchmarking), 240.0.0.0/4 and broadcast.
  if ((a === 192 && b === 0 && c === 0) || (a === 192 && b === 88 && c === 99) || (a === 198 && (b === 18 || b === 19)) || a >= 240)
    return "reserved";
  return "public";
}

/** Eight 16-bit groups, or null when `host` is not an IPv6 literal (brackets allowed). */
function parseV6(host: string): number[] | null {
  let h = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (!h.includes(":")) return null;
  h = h.split("%")[0] ?? h;
  // A trailing dotted IPv4 (`::ffff:127.0.0.1`) becomes two groups.
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(h);
  if (tail) {
    const v4 = parseV4(tail[1] as string);
    if (!v4) return null;
    h = h.slice(0, -(tail[1] as string).length) + `${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = h.split("::");
  if (halves.length > 2) return null;
  const side = (s: string | undefined) => (s ? s.split(":") : []);
  const head = side(halves[0]);
  const rest = side(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest].map((g) =>
    /^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : Number.NaN,
  );
  return groups.length === 8 && groups.every((g) => Number.isInteger(g)) ? groups : null;
}

function embeddedV4(g: number[], at: number): V4 {
  const hi = g[at] as number;
  const lo = g[at + 1] as number;
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

function kindOfV6(g: number[]): AddressKind {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, , g7 = 0] = g;
  const zeroTo = (n: number) => g.slice(0, n).every((v) => v === 0);
  if (zeroTo(8)) return "unspecified";
  if (zeroTo(7) && g7 === 1) return "loopback";
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), SIIT's IPv4-translated
  // (::ffff:0:a.b.c.d, RFC 2765) and NAT64 (64:ff9b::a.b.c.d): the IPv4 address decides.
  if (zeroTo(5) && (g5 === 0xffff || g5 === 0)) return kindOfV4(embeddedV4(g, 6));
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return kindOfV4(embeddedV4(g, 6));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return kindOfV4(embeddedV4(g, 6));
  // 64:ff9b:1::/48 is NAT64 for a local network (RFC 8215): whatever it embeds stays inside.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "reserved";
  // 6to4 (2002:a.b.c.d::/48) carries an IPv4 address too.
  if (g0 === 0x2002) return kindOfV4(embeddedV4(g, 1));
  if ((g0 & 0xfe00) === 0xfc00) return "unique-local";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local";
  // fec0::/10: site-local, deprecated (RFC 3879) but still routed inside some networks.
  if ((g0 & 0xffc0) === 0xfec0) return "site-local";
  if ((g0 & 0xff00) === 0xff00) return "multicast";
  // 2001:db8::/32 (RFC 3849) and 3fff::/20 (RFC 9637).
  if ((g0 === 0x2001 && g1 === 0x0db8) || (g0 === 0x3fff && (g1 & 0xf000) === 0)) return "documentation";
  // 2001::/23, IETF protocol assignments (Teredo, benchmarking, ORCHID, …): none is a server's address.
  if (g0 === 0x2001 && g1 < 0x200) return "reserved";
  // Only 2000::/3 is global unicast; the rest (100::/64 discard, 5f00::/16 SRv6, unassigned space) is not.
  if ((g0 & 0xe000) !== 0x2000) return "reserved";
  return "public";
}

/** The kind of an IP address (as DNS returns it) or of a URL's hostname. */
export function addressKind(host: string): AddressKind {
  const h = host.toLowerCase().replace(/\.$/, "");
  const v4 = parseV4(h);
  if (v4) return kindOfV4(v4);
  const v6 = parseV6(h);
  if (v6) return kindOfV6(v6);
  if (
    h === "localhost" ||
    h.endsWith(".localhost") ||
    h.endsWith(".local") ||
    h.endsWith(".internal") ||
    h.endsWith(".localdomain") ||
    h.endsWith(".home.arpa")
  )
    return "internal-name";
  // A single label (`metadata`, `minio`) resolves through the resolver's search domains: inside a network.
  if (!h.includes(".")) return "internal-name";
  return "public";
}

export const isPublicAddress = (host: string): boolean => addressKind(host) === "public";

const KIND_TEXT: Record<Exclude<AddressKind, "public">, string> = {
  loopback: "a loopback address",
  private: "a private (RFC 1918) address",
  "link-local": "a link-local address",
  "site-local": "a site-local IPv6 address",
  cgnat: "a carrier-grade NAT address",
  "unique-local": "a unique-local IPv6 address",
  unspecified: "an unspecified address",
  multicast: "a multicast address",
  documentation: "an address reserved for documentation",
  reserved: "a reserved address",
  "internal-name": "a name that only resolves inside a network",
};

/**
 * Why the service must not connect to `url`'s host, or null when it may. `allowLoopback` is for
 * local stacks only: loopback hosts (127.0.0.0/8, ::1, localhost) are then allowed, nothing else.
 */
export function hostRefusal(url: URL, opts: { allowLoopback: boolean }): string | null {
  const kind = addressKind(url.hostname);
  if (kind === "public") return null;
  const host = url.hostname.toLowerCase();
  if (opts.allowLoopback && (kind === "loopback" || host === "localhost")) return null;
  return `${url.hostname} is ${KIND_TEXT[kind]}; the service connects only to public hosts`;
}

export interface Refusal {
  message: string;
  issue: string;
}

/**
 * Why the service may not POST to a webhook URL, or null when it may: https to a public host.
 * Plain http, and loopback hosts, only on a local stack whose settings allow it (`webhooks.allowLoopbackHttp`).
 */
export function webhookUrlRefusal(url: string, settings: Settings, environment: string): Refusal | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { message: "webhook URL is not a valid URL", issue: "invalidFormat" };
  }
  const localLoopback = environment === "local" && settings.webhooks.allowLoopbackHttp;
  const host = hostRefusal(u, { allowLoopback: localLoopback });
  if (u.protocol !== "https:" && !(u.protocol === "http:" && localLoopback && !host && isLoopback(u))) {
    return {
      message: "webhookUrl must start with https:// (plain http only to loopback on a local stack that allows it)",
      issue: "httpsRequired",
    };
  }
  return host ? { message: `webhookUrl refused: ${host}`, issue: "privateAddress" } : null;
}

/**
 * Why the service may not connect to a storage endpoint, or null when it may: https to a public host.
 * On a local stack, plain http to a loopback store is allowed (the local S3 server).
 */
export function storageEndpointRefusal(endpoint: string, environment: string): Refusal | null {
  const u = new URL(endpoint);
  const local = environment === "local";
  const host = hostRefusal(u, { allowLoopback: local });
  if (host) return { message: `endpoint refused: ${host}`, issue: "privateAddress" };
  if (u.protocol !== "https:" && !(local && isLoopback(u)))
    return { message: "endpoint must be https:// (plain http only to a loopback store on a local stack)", issue: "httpsRequired" };
  return null;
}

function isLoopback(u: URL): boolean {
  return hostRefusal(u, { allowLoopback: false }) !== null && hostRefusal(u, { allowLoopback: true }) === null;
}
