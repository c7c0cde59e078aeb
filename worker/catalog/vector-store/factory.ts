import type { Env } from "../../env";
import { D1VectorStore } from "./d1";
import type { VectorStore } from "./interface";
import { VectorizeStore } from "./vectorize";

/**
 * `VECTOR_STORE=vectorize` with a `VECTORIZE` binding (wrangler.toml, production) uses Cloudflare
 * Vectorize; anything else the D1 store, which `wrangler dev` runs with no account (Vectorize is not
 * emulated locally).
 */
export function vectorStoreFor(env: Env): VectorStore {
  if (env.VECTOR_STORE === "vectorize") {
    if (!env.VECTORIZE) throw new Error("VECTOR_STORE=vectorize but the Worker has no VECTORIZE binding (wrangler.toml [[vectorize]])");
    return new VectorizeStore(env.VECTORIZE);
  }
  return new D1VectorStore(env.DB);
}
