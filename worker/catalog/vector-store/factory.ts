import type { Env } from "../../env";
import { ObjectVectorStore } from "./durable-object";
import type { VectorStore } from "./interface";
import { VectorizeStore } from "./vectorize";

/**
 * `VECTOR_STORE=vectorize` with a `VECTORIZE` binding (wrangler.toml) keeps every collection's
 * vectors in Cloudflare Vectorize, for deployments with collections beyond what one catalog object
 * holds (docs/deploy.md); anything else keeps them in each project's catalog object, which
 * `wrangler dev` runs with no account.
 */
export function vectorStoreFor(env: Env): VectorStore {
  if (env.VECTOR_STORE === "vectorize") {
    if (!env.VECTORIZE) throw new Error("VECTOR_STORE=vectorize but the Worker has no VECTORIZE binding (wrangler.toml [[vectorize]])");
    return new VectorizeStore(env.VECTORIZE);
  }
  return new ObjectVectorStore(env.CATALOG);
}
