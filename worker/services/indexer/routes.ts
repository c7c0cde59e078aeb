import { Hono } from "hono";
import { collectionName, SearchRequestSchema } from "../../../contracts/catalog";
import { principalOf, projectOf } from "../../auth/middleware";
import { dropTranscript } from "../../catalog/index-writer";
import { queryEmbedder } from "../../catalog/query-embedder";
import { queryReranker } from "../../catalog/query-reranker";
import { DenseUnavailable, searchCatalog } from "../../catalog/search";
import { vectorStoreFor } from "../../catalog/vector-store/factory";
import { catalogObject } from "../../../durable-objects/catalog/address";
import { getDb } from "../../db/client";
import type { AppBindings } from "../../env";
import { ApiError, notFound } from "../../errors";
import { ok } from "../../http/envelope";
import { jsonBody } from "../../http/validate";
import { loadSettings } from "../../platform/settings";
import { speakerNamesOf } from "../../transcripts/lookup";
import { currentRevisionsOf, staleness } from "../../transcripts/staleness";

/**
 * `/v1/catalog/*`: search over the project's collection, and its inventory. Every route is scoped
 * to the key's project: it reaches that project's catalog object only (durable-objects/catalog-do.ts),
 * so another project's transcripts are never read, listed or removed.
 */
export const catalogRoutes = new Hono<AppBindings>()
  .post("/search", async (c) => {
    const p = principalOf(c);
    const req = await jsonBody(c, SearchRequestSchema);
    const projectId = projectOf(p);
    const timing = c.get("timing");
    const settings = await loadSettings(getDb(c.env.DB));
    const embedder = req.mode === "sparse" ? { engine: null } : queryEmbedder(c.env, settings);
    if (req.mode === "dense" && !embedder.engine)
      throw new ApiError("serviceNotAvailable", `dense search is not available on this deployment: ${embedder.unavailable}`, [
        { path: "mode", issue: "denseUnavailable" },
      ]);
    const reranker = req.mode === "hybrid" ? queryReranker(c.env, settings) : { engine: null };
    const started = Date.now();
    const answer = await searchCatalog(projectId, req, {
      catalog: c.env.CATALOG,
      store: vectorStoreFor(c.env),
      embedder: embedder.engine,
      candidates: settings.catalog.candidates,
      rrfK: settings.catalog.rrfK,
      reranker: reranker.engine,
      rerankCandidates: settings.catalog.rerankCandidates,
      speakerNames: (ids) => speakerNamesOf(getDb(c.env.DB), projectId, ids),
      ...(timing ? { time: timing.time.bind(timing) } : {}),
    }).catch((err: unknown) => {
      if (err instanceof DenseUnavailable)
        throw new ApiError("serviceNotAvailable", `dense search is not available right now: ${err.message}`, [
          { path: "mode", issue: "denseUnavailable" },
        ]);
      throw err;
    });
    const unavailable = embedder.unavailable ?? answer.info.denseFailed;
    const warnings = req.mode === "hybrid" && unavailable ? [`dense retrieval unavailable (${unavailable}): sparse results only`] : [];
    const rerankUnavailable = reranker.unavailable ?? answer.info.rerankFailed;
    if (rerankUnavailable) warnings.push(`reranking unavailable (${rerankUnavailable}): results in fused order`);
    return ok(
      c,
      { query: req.query, mode: req.mode, results: answer.results, groups: answer.groups },
      { ...answer.info, tookMs: Date.now() - started, warnings },
    );
  })
  .get("/transcriptions", async (c) => {
    const p = principalOf(c);
    const projectId = projectOf(p);
    const rows = await catalogObject(c.env.CATALOG, collectionName(projectId)).entries();
    const revisions = await currentRevisionsOf(
      getDb(c.env.DB),
      projectId,
      rows.map((r) => r.textSourceId),
    );
    const data = rows
      .sort((a, b) => b.indexedAt.localeCompare(a.indexedAt))
      .map((r) => ({
        textSourceId: r.textSourceId,
        chunkCount: r.chunkCount,
        segmentCount: r.segmentCount,
        ...staleness(r.transcriptRevision, revisions.get(r.textSourceId)),
        language: r.language,
        denseEngine: r.denseEngine,
        denseModel: r.denseModel,
        dimensions: r.dimensions,
        sparseEngine: r.sparseEngine,
        indexedByJobId: r.jobId,
        lastIndexedAt: r.indexedAt,
      }));
    return ok(c, data, { collection: collectionName(projectId), count: data.length });
  })
  .delete("/transcriptions/:textSourceId", async (c) => {
    const p = principalOf(c);
    const projectId = projectOf(p);
    const id = c.req.param("textSourceId");
    const dropped = await dropTranscript({ catalog: c.env.CATALOG, store: vectorStoreFor(c.env), projectId }, id);
    if (!dropped) throw notFound(`transcription not in the catalog: ${id}`, [{ path: "textSourceId", issue: `notFound:${id}` }]);
    return ok(c, { textSourceId: id, removed: true, removedChunks: dropped.removedChunks });
  });
