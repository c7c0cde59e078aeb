import { lookup as dnsLookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector, fetch as undiciFetch } from "undici";
import { addressKind, type AddressKind } from "../../contracts/outbound-address";
import { StepFailure } from "../../contracts/step-failure";

/**
 * The runner's one way to connect to a server a customer names or influences (storage endpoints,
 * virtual-hosted `<bucket>.<endpoint host>`, presigned URLs, engines' output files): every
 * connection's address is checked when it is made, so the address checked is the address connected
 * to. A name is resolved once, by the connector's own `lookup`, and refused (`storage_endpoint_refused`,
 * final) if any address it resolves to is not public; an IP literal, which needs no lookup, is checked
 * before connecting. A redirect cannot get round it either (each hop is a new connection), although
 * callers refuse redirects anyway. Loopback is allowed only on a local stack (`allowLoopback`).
 *
 * Built on undici's `Agent` (its `connect` hook) and undici's own `fetch`: the global fetch bundles
 * an older undici whose dispatcher interface differs, so the two are never mixed.
 */

export type Resolver = (host: string) => Promise<string[]>;

export interface OutboundGuard {
  /** Loopback addresses allowed (a local stack's S3 server and fakes); never private or link-local ones. */
  allowLoopback: boolean;
  /** Tests inject names' addresses; production asks the system resolver. */
  resolve?: Resolver;
}

export const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The failure every refused connection is: final, naming the host and what kind of address it is, nothing else. */
export function addressRefusal(host: string, kind: AddressKind, label = "the server"): StepFailure {
  return new StepFailure(
    "storage_endpoint_refused",
    `${label} ${host} resolves to a non-public address (${kind}); the runner connects only to public hosts`,
    false,
  );
}

/** Whether the guard lets the runner connect to an address (or name) of this kind. */
export function allowedKind(kind: AddressKind, host: string, guard: Pick<OutboundGuard, "allowLoopback">): boolean {
  return kind === "public" || (guard.allowLoopback && (kind === "loopback" || host === "localhost"));
}

/** A name that may be looked up at all: not one that only resolves inside a network (`minio`, `*.internal`). */
function nameRefusal(host: string, guard: OutboundGuard): StepFailure | null {
  const kind = addressKind(host);
  return allowedKind(kind, host, guard) ? null : addressRefusal(host, kind);
}

function guardedLookup(guard: OutboundGuard): LookupFunction {
  const resolve = guard.resolve ?? systemResolver;
  return (hostname, options, callback) => {
    const refused = nameRefusal(hostname, guard);
    if (refused) return callback(refused, "", 0);
    resolve(hostname).then(
      (addresses) => {
        if (addresses.length === 0) return callback(new Error(`${hostname} has no addresses`), "", 0);
        for (const address of addresses) {
          const kind = addressKind(address);
          if (!allowedKind(kind, address, guard)) return callback(addressRefusal(hostname, kind), "", 0);
        }
        const wanted = options.family === 4 || options.family === "IPv4" ? 4 : options.family === 6 || options.family === "IPv6" ? 6 : 0;
        const found = addresses.map((address) => ({ address, family: isIP(address) })).filter((a) => !wanted || a.family === wanted);
        const first = found[0];
        if (!first) return callback(new Error(`${hostname} has no IPv${wanted} address`), "", 0);
        if (options.all) return (callback as unknown as (err: null, all: typeof found) => void)(null, found);
        return callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), "", 0),
    );
  };
}

function guardedAgent(guard: OutboundGuard): Agent {
  const base = buildConnector({ lookup: guardedLookup(guard) });
  return new Agent({
    connect: (opts, callback) => {
      const host = opts.hostname.replace(/^\[|\]$/g, "");
      // An IP literal is connected to as it is (no lookup): it is checked here.
      if (isIP(host)) {
        const kind = addressKind(host);
        if (!allowedKind(kind, host, guard)) return callback(addressRefusal(host, kind), null);
      }
      return base(opts, callback);
    },
  });
}

/** One agent per guard setting (its connections are pooled across tasks), not one per task. */
const agents = new Map<string, Agent>();
const agentsByResolver = new WeakMap<Resolver, Map<string, Agent>>();

function agentFor(guard: OutboundGuard): Agent {
  const key = String(guard.allowLoopback);
  let pool = agents;
  if (guard.resolve) {
    pool = agentsByResolver.get(guard.resolve) ?? new Map();
    agentsByResolver.set(guard.resolve, pool);
  }
  let agent = pool.get(key);
  if (!agent) {
    agent = guardedAgent(guard);
    pool.set(key, agent);
  }
  return agent;
}

/**
 * A fetch whose every connection is checked by `guard`. A refused connection rejects with the
 * StepFailure itself (not fetch's generic "fetch failed"), so callers can pass it on as it is.
 * It follows no redirect unless the caller's init says so: `redirect` defaults to `manual` here.
 */
export function guardedFetch(guard: OutboundGuard): typeof fetch {
  const dispatcher = agentFor(guard);
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    if (typeof input !== "string" && !(input instanceof URL))
      throw new TypeError("the guarded fetch takes a URL (a Request of the global fetch is another undici's)");
    try {
      // The global fetch's types (lib.dom / undici-types) and undici 7's describe the same runtime
      // objects (WHATWG Response, web streams); only the type declarations differ.
      const res = await undiciFetch(input, { redirect: "manual", ...(init as object), dispatcher } as Parameters<typeof undiciFetch>[1]);
      return res as unknown as Response;
    } catch (err) {
      const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
      if (cause instanceof StepFailure) throw cause;
      throw err;
    }
  };
  return guarded as typeof fetch;
}
