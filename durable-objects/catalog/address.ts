import type { CatalogDO } from "../catalog-do";

/**
 * The catalog object of a project, by its collection name (`svc_proj_{projectId}`). Apart from the
 * class, so a caller (the Worker's routes, the OpenAPI document's build in Node) reaches the object
 * without loading the Durable Object runtime module.
 */
export function catalogObject(ns: DurableObjectNamespace<CatalogDO>, collection: string): DurableObjectStub<CatalogDO> {
  return ns.get(ns.idFromName(collection));
}
