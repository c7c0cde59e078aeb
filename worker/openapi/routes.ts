import { Hono } from "hono";
import type { AppBindings } from "../env";
import { openApiDocument } from "./document";
import { renderReferencePage } from "./reference-page";

let page: string | null = null;

/** GET /v1/openapi.json and GET /docs/reference: public, mounted before authentication. */
export const openApiRoutes = new Hono<AppBindings>()
  .get("/v1/openapi.json", (c) => c.json(openApiDocument()))
  .get("/docs/reference", (c) => {
    page ??= renderReferencePage(openApiDocument());
    return c.html(page);
  });
