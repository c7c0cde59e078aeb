/**
 * The D1 query count's figures and the response headers that carry them (worker/db/query-count.ts
 * counts; bench/capacity.ts reads). No Worker types here, so Node code can parse the headers.
 */

export interface D1QueryCount {
  statements: number;
  calls: number;
  rowsRead: number;
  rowsWritten: number;
}

export const REQUEST_HEADER = "x-d1-queries";
export const ISOLATE_HEADER = "x-d1-queries-isolate";

const FIELDS: Array<[keyof D1QueryCount, string]> = [
  ["statements", "statements"],
  ["calls", "calls"],
  ["rowsRead", "rows-read"],
  ["rowsWritten", "rows-written"],
];

/** `statements=5;calls=4;rows-read=12;rows-written=3`: the header value. */
export function formatQueryCount(c: D1QueryCount): string {
  return FIELDS.map(([k, name]) => `${name}=${c[k]}`).join(";");
}

/** The header value back as figures; null when it is absent or not this format. */
export function parseQueryCount(value: string | null | undefined): D1QueryCount | null {
  if (!value) return null;
  const pairs = new Map(value.split(";").map((p) => p.trim().split("=", 2) as [string, string | undefined]));
  const out: D1QueryCount = { statements: 0, calls: 0, rowsRead: 0, rowsWritten: 0 };
  for (const [k, name] of FIELDS) {
    const n = Number(pairs.get(name));
    if (!pairs.has(name) || !Number.isInteger(n) || n < 0) return null;
    out[k] = n;
  }
  return out;
}

/** `b − a`, field by field: what happened between two isolate tallies. */
export function queryCountDelta(a: D1QueryCount, b: D1QueryCount): D1QueryCount {
  return {
    statements: b.statements - a.statements,
    calls: b.calls - a.calls,
    rowsRead: b.rowsRead - a.rowsRead,
    rowsWritten: b.rowsWritten - a.rowsWritten,
  };
}
