import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A stand-in embedding model for the Worker's catalog tests, served in OpenAI's `/v1/embeddings`
 * format on loopback: signed feature hashing of a text's lower-cased words into 64 dimensions, unit
 * length. Texts sharing words are close and texts sharing none are nearly orthogonal, so dense
 * search in a test ranks what a reader would expect, while the real meaning-bearing engine
 * (local-wink) is tested on its own (test/node/engines/embeddings.conformance.test.ts).
 */
export const LEXICAL_MODEL = "lexical-hash-64";
export const LEXICAL_DIMENSIONS = 64;

function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function lexicalEmbedding(text: string, dims = LEXICAL_DIMENSIONS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = hash(w);
    v[h % dims]! += h >>> 31 === 1 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
}

/** Starts the server on a free loopback port; it never keeps the process alive. */
export async function startLexicalEmbeddings(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/embeddings") {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
        return;
      }
      const { input, model } = JSON.parse(body) as { input: string | string[]; model: string };
      const texts = typeof input === "string" ? [input] : input;
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
