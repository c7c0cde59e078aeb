import { AwsV4Signer } from "aws4fetch";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newJob } from "../../contracts/job";
import { pythonJson, runPython } from "../support/python-client";

/**
 * The Python client (sdk/python) in the suite: its own unittest suite, and its webhook verifier
 * against deliveries signed by the npm `standardwebhooks` package, the library the Worker signs with.
 * Its S3 GET signing is compared with aws4fetch's, the signer the project's own S3 client uses.
 * Its routes and dataclasses are checked against the OpenAPI document in python-client-openapi.test.ts.
 */

describe("the Python client's unit tests", () => {
  it("pass under python3 -m unittest", async () => {
    const run = await runPython(["-m", "unittest", "discover", "-s", "tests", "-t", "."], { timeoutMs: 120_000 });
    expect(run.code, run.stderr).toBe(0);
    // unittest reports on stderr: "Ran N tests", then "OK".
    expect(Number(/Ran (\d+) tests?/.exec(run.stderr)?.[1])).toBeGreaterThan(30);
    expect(run.stderr).toMatch(/\nOK\b/);
  });
});

const SECRET = "whsec_" + Buffer.from("a-32-byte-secret-for-the-tests!!").toString("base64");
const PREVIOUS_SECRET = "whsec_" + Buffer.from("the-previous-secret-of-32-bytes!").toString("base64");
// The real clock: the npm package's own verify (the reference below) reads it and takes no other.
const NOW = new Date();
const NOW_SEC = Math.floor(NOW.getTime() / 1000);

/** A completed job's delivery body, its Job made the way the create makes one (contracts/job.ts). */
const BODY = JSON.stringify({
  type: "job.completed",
  event: "completed",
  eventId: "msg_job_0123456789abcdefghij_4",
  occurredAt: NOW.toISOString(),
  jobId: "job_0123456789abcdefghij",
  customerJobRef: "ep-42",
  resultSummary: { textSourceId: "txt_0123456789abcdefghij" },
  job: {
    ...newJob({
      jobId: "job_0123456789abcdefghij",
      serviceType: "transcription",
      priority: "normal",
      workspaceId: "wsp_0123456789abcdefghij",
      projectId: "prj_0123456789abcdefghij",
      workspacePlan: "pro",
      input: { textSourceId: "txt_0123456789abcdefghij" },
      webhookUrl: "https://hooks.example.com/media",
      createdByLabel: "ci key",
      createdByKind: "api_key",
      apiKeyLabel: "ci key",
      apiKeyId: "pak_0123456789abcdefghij",
      isConsoleKey: false,
      createdAt: NOW.toISOString(),
      userMetadata: { customerJobRef: "ep-42" },
    }),
    status: "completed",
  },
});

interface Vector {
  name: string;
  body: string;
  headers: Record<string, string>;
  secrets: string[];
  now: number;
  tolerance?: number;
}

/** Headers as the Worker sends them: one `v1,` signature per secret, by `standardwebhooks`. */
function signed(at: Date, secrets: string[] = [SECRET], body = BODY): Record<string, string> {
  return {
    "webhook-id": "msg_job_0123456789abcdefghij_4",
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": secrets.map((s) => new Webhook(s).sign("msg_job_0123456789abcdefghij_4", at, body)).join(" "),
  };
}

const VECTORS: Vector[] = [
  { name: "signed", body: BODY, headers: signed(NOW), secrets: [SECRET], now: NOW_SEC },
  {
    name: "rotation, receiver holds the previous secret",
    body: BODY,
    headers: signed(NOW, [SECRET, PREVIOUS_SECRET]),
    secrets: [PREVIOUS_SECRET],
    now: NOW_SEC,
  },
  {
    name: "receiver accepts either secret",
    body: BODY,
    headers: signed(NOW, [PREVIOUS_SECRET]),
    secrets: [SECRET, PREVIOUS_SECRET],
    now: NOW_SEC,
  },
  { name: "tampered body", body: BODY.replace("ep-42", "ep-43"), headers: signed(NOW), secrets: [SECRET], now: NOW_SEC },
  { name: "wrong secret", body: BODY, headers: signed(NOW), secrets: [PREVIOUS_SECRET], now: NOW_SEC },
  { name: "400 s old", body: BODY, headers: signed(new Date(NOW.getTime() - 400_000)), secrets: [SECRET], now: NOW_SEC },
  { name: "400 s ahead", body: BODY, headers: signed(new Date(NOW.getTime() + 400_000)), secrets: [SECRET], now: NOW_SEC },
  {
    name: "400 s old, tolerance 600 s",
    body: BODY,
    headers: signed(new Date(NOW.getTime() - 400_000)),
    secrets: [SECRET],
    now: NOW_SEC,
    tolerance: 600,
  },
  { name: "no signature header", body: BODY, headers: { ...signed(NOW), "webhook-signature": "" }, secrets: [SECRET], now: NOW_SEC },
];

type Verdict = { verified: boolean; reason: string | null; jobId: string | null };

describe("the Python client's webhook verification against deliveries signed by the npm standardwebhooks package", () => {
  const verdicts = () => pythonJson<Record<string, Verdict>>(["tests/verify_vectors.py"], { input: JSON.stringify(VECTORS) });

  it("verifies a delivery, during a rotation with either secret, and parses the job event", async () => {
    const v = await verdicts();
    for (const name of ["signed", "rotation, receiver holds the previous secret", "receiver accepts either secret"])
      expect(v[name], name).toEqual({ verified: true, reason: null, jobId: "job_0123456789abcdefghij" });
  });

  it("refuses a tampered body, the wrong secret, a timestamp outside the tolerance and a missing signature", async () => {
    const v = await verdicts();
    expect(Object.fromEntries(Object.entries(v).map(([name, x]) => [name, x.reason]))).toMatchObject({
      "tampered body": "badSignature",
      "wrong secret": "badSignature",
      "400 s old": "timestampOutOfTolerance",
      "400 s ahead": "timestampOutOfTolerance",
      "400 s old, tolerance 600 s": null,
      "no signature header": "missingHeaders",
    });
  });

  it("agrees with the npm package's own verify on every delivery", async () => {
    const v = await verdicts();
    const reference = (x: Vector) =>
      x.secrets.some((secret) => {
        try {
          new Webhook(secret).verify(x.body, x.headers);
          return true;
        } catch {
          return false;
        }
      });
    // The package's tolerance is fixed at 5 minutes: the vector with another tolerance is not comparable.
    const comparable = VECTORS.filter((x) => x.tolerance === undefined);
    expect(Object.fromEntries(comparable.map((x) => [x.name, v[x.name]?.verified]))).toEqual(
      Object.fromEntries(comparable.map((x) => [x.name, reference(x)])),
    );
  });
});

describe("the Python client's S3 signing (output downloads) against aws4fetch", () => {
  const CREDENTIALS = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };
  const CASES = [
    { endpoint: "https://s3.eu-west-1.amazonaws.com", region: "eu-west-1", pathStyle: false, bucket: "media", key: "clips/clip-00.mp4" },
    { endpoint: "http://127.0.0.1:9000", region: "us-east-1", pathStyle: true, bucket: "media-local", key: "talks/ep 42/ü+(1)!.srt" },
  ];

  it("signs an object GET exactly as aws4fetch does, for virtual-host and path-style stores and keys that need encoding", async () => {
    const python = await pythonJson<Array<{ url: string; authorization: string }>>(
      [
        "-c",
        [
          "import json, sys",
          "from datetime import datetime, UTC",
          "from media_jobs import S3Client",
          "out = []",
          "for c in json.load(sys.stdin):",
          "    s3 = S3Client(c['endpoint'], c['accessKeyId'], c['secretAccessKey'], region=c['region'], path_style=c['pathStyle'])",
          "    url = s3.object_url(c['bucket'], c['key'])",
          "    out.append({'url': url, 'authorization': s3.sign('GET', url, now=datetime(2026, 11, 27, 12, 0, 0, tzinfo=UTC))['authorization']})",
          "print(json.dumps(out))",
        ].join("\n"),
      ],
      { input: JSON.stringify(CASES.map((c) => ({ ...c, ...CREDENTIALS }))) },
    );
    const reference = await Promise.all(
      python.map(async ({ url }, i) => {
        const signer = new AwsV4Signer({
          url,
          method: "GET",
          service: "s3",
          region: CASES[i]!.region,
          datetime: "20261127T120000Z",
          ...CREDENTIALS,
        });
        return (await signer.sign()).headers.get("authorization");
      }),
    );
    expect(python.map((p) => p.authorization)).toEqual(reference);
    expect(python[1]!.url).toBe("http://127.0.0.1:9000/media-local/talks/ep%2042/%C3%BC%2B%281%29%21.srt");
  });
});
