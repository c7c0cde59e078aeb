import type { TestProject } from "vitest/node";
import { HostileServer, type Answer, type Seen } from "../../support/hostile-server";

/**
 * A hostile customer server on loopback for the workerd tests (runs in Node): an S3 endpoint (any
 * bucket; signatures are not checked) and a presigned URL host at once. What it does depends on the
 * object's name, `<scenario>-<anything>`:
 *
 *   redirect-…     302 to the bystander (a second listener standing in for the operator's network)
 *   redirect307-…  307 to the bystander (a PUT must not follow it)
 *   endless-…      200, ignoring Range, 64 MiB that declare no length
 *   declared-…     200, ignoring Range, declaring 11 GiB (1 MiB is sent, then the connection ends)
 *   ranged-huge-…  206 `bytes 0-0/11811160064`
 *   refused-…      403 with a 64 MiB body
 *   logo-endless-… HEAD: a small PNG; GET: 64 MiB (a logo replaced after it was checked)
 *
 * Bodies are finite, though far larger than any probe asks for: miniflare's outbound proxy reads
 * an answer to its end whatever the Worker does, so an endless one would never stop.
 *   anything else  206 `bytes 0-0/100` to a GET, 200 to HEAD and PUT
 *
 * `GET /_stats` answers what reached it: every request's path, bytes sent and whether the client
 * went away, and how many connections and requests reached the bystander.
 */

export const HUGE_BYTES = 11 * 1024 ** 3;
const LARGE = 64 * 1024 * 1024;

export default async function setup(project: TestProject) {
  const bystander = await HostileServer.start();
  let hostile: HostileServer | undefined = undefined;
  const stats = (): Answer => ({
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      seen: (hostile?.seen ?? [])
        .filter((s) => !s.path.startsWith("/_stats"))
        .map(({ method, path, bytesSent, closed }) => ({ method, path, bytesSent, closed })),
      bystander: { connections: bystander.connections, requests: bystander.requests },
    }),
  });
  const answer = (req: Seen): Answer => {
    if (req.path.startsWith("/_stats")) return stats();
    const name = (req.path.split("?")[0] ?? "").split("/").pop() ?? "";
    const scenario = /^(redirect307|redirect|endless|declared|ranged-huge|refused|logo-endless)-/.exec(name)?.[1];
    switch (scenario) {
      case "redirect":
        return { redirect: `${bystander.url}/inside` };
      case "redirect307":
        return { redirect: `${bystander.url}/inside`, status: 307 };
      case "endless":
        return { stream: { bytes: LARGE } };
      case "declared":
        return { stream: { bytes: 1024 * 1024, declareLength: HUGE_BYTES } };
      case "ranged-huge":
        return { status: 206, body: "A", headers: { "content-range": `bytes 0-0/${HUGE_BYTES}` } };
      case "refused":
        return { stream: { status: 403, bytes: LARGE, headers: { "content-type": "application/xml" } } };
      case "logo-endless":
        return req.method === "HEAD"
          ? { status: 200, headers: { "content-type": "image/png", "content-length": "68" } }
          : { stream: { bytes: LARGE, headers: { "content-type": "image/png" } } };
      default:
        return req.method === "GET" ? { status: 206, body: "A", headers: { "content-range": "bytes 0-0/100" } } : { status: 200 };
    }
  };
  hostile = await HostileServer.start(answer);
  project.provide("hostile", hostile.url);
  return async () => {
    await hostile?.close();
    await bystander.close();
  };
}
