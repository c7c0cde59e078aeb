import { z } from "zod";
import { operations } from "../operation";

/** worker/app.ts's own routes and this document's: what a client reads before it has a key. */
export const metaOperations = operations([
  {
    method: "get",
    path: "/",
    tag: "Meta",
    summary: "Service index",
    description: "The service's name, version and where its documentation is.",
    access: "public",
    data: z.looseObject({ service: z.string(), version: z.string() }),
  },
  { method: "get", path: "/healthz", tag: "Meta", summary: "Health check", access: "public", data: z.object({ ok: z.literal(true) }) },
  {
    method: "get",
    path: "/v1/openapi.json",
    tag: "Meta",
    summary: "This OpenAPI document",
    description: "Generated from the zod schemas the routes validate requests with.",
    access: "public",
    raw: { contentType: "application/json", description: "The OpenAPI 3.1 document." },
  },
  {
    method: "get",
    path: "/docs/reference",
    tag: "Meta",
    summary: "API reference page",
    description: "This document rendered as one HTML page, no JavaScript.",
    access: "public",
    raw: { contentType: "text/html", description: "The reference page." },
  },
]);
