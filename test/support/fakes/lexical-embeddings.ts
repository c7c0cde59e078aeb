import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { LEXICAL_FAIL_WORD, LEXICAL_RERANK_FAIL_WORD, lexicalEmbedding, lexicalRerankScore } from "./lexical-vectors";

/**
 * The lexical stand-in model (lexical-vectors.ts) in OpenAI's `/v1/embeddings` format on loopback,
 * and its stand-in reranker in TEI's `/rerank` format (as the local engine process serves both), for
 * the Workers tests.
 */
/** Starts the server on a free loopback port; it never keeps the process alive. */
export async function startLexicalEmbeddings(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/rerank") {
        const { query, texts } = JSON.parse(body) as { query: string; texts: string[] };
        if (query.includes(LEXICAL_RERANK_FAIL_WORD)) {
          res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: "overloaded", error_type: "Overloaded" }));
          return;
        }
        const ranked = texts.map((t, index) => ({ index, score: lexicalRerankScore(query, t) })).sort((a, b) => b.score - a.score);
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(ranked));
        return;
      }
      if (req.method !== "POST" || req.url !== "/v1/embeddings") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      const { input, model } = JSON.parse(body) as { input: string | string[]; model: string };
      const texts = typeof input === "string" ? [input] : input;
      // A way for a test to see the server fail: any text asking for it.
      if (texts.some((t) => t.includes(LEXICAL_FAIL_WORD))) {
        res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "model overloaded" } }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          object: "list",
          model,
          data: texts.map((t, index) => ({ object: "embedding", index, embedding: lexicalEmbedding(t) })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
