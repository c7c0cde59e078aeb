/**
 * The client's address as a throttling key. Cloudflare's edge sets `CF-Connecting-IP` on every
 * request and overwrites any a client sends; `wrangler dev` sets it to the peer's address when the
 * client sent none (so on a local stack a client can choose it: the local stack is not an edge).
 * A self-hosted workerd must sit behind a proxy that sets it the same way.
 *
 * An IPv6 client usually holds a whole /64, so its key is the /64: otherwise one host could take a
 * fresh address for every attempt. A missing or malformed header is one shared key, `unknown`.
 */
export function clientAddressKey(header: string | null | undefined): string {
  const raw = header?.trim() ?? "";
  const v4 = ipv4(raw);
  if (v4) return v4;
  const v6 = ipv6Groups(raw);
  if (!v6) return "unknown";
  // An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 client it names.
  if (v6.slice(0, 5).every((g) => g === 0) && v6[5] === 0xffff) {
    return [v6[6]! >> 8, v6[6]! & 0xff, v6[7]! >> 8, v6[7]! & 0xff].join(".");
  }
  return `${v6
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`;
}

function ipv4(s: string): string | null {
  const parts = s.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number).join(".");
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a dotted IPv4 tail read), or null. */
function ipv6Groups(s: string): number[] | null {
  if (!s.includes(":") || s.length > 45) return null;
  let text = s.replace(/%.*$/, "").toLowerCase();
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (tail) {
    const v4 = ipv4(tail[1]!);
    if (!v4) return null;
    const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const read = (part: string) => (part === "" ? [] : part.split(":"));
  const head = read(halves[0]!);
  const rest = halves.length === 2 ? read(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => parseInt(g, 16));
}
