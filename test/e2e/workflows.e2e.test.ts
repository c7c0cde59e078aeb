import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Preset, Workflow } from "../../contracts/workflows";
import { startE2E, type E2E } from "../support/e2e-stack";
import { speechVideo } from "../support/media-fixtures";
import { startWebhookReceiver } from "../support/webhook-receiver";

/**
 * Trigger on upload through the whole local stack (issue 26): a preset of a transcription, clips and
 * a Spanish dub; a trigger on the bucket's `uploads/` prefix; the local S3 server sending its event
 * notifications as MinIO would. A file put in the bucket becomes a transcript, a clip and a dub
 * with no API call, and the workflow's one webhook event says so.
 */
let e: E2E;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let preset: Preset;

beforeAll(async () => {
  e = await startE2E({ runners: 1, runnerConcurrency: 2, settings: { webhooks: { allowLoopbackHttp: true } } });
  // Only the bodies are read here (the receiver answers 401 to every delivery it cannot verify).
  receiver = await startWebhookReceiver(() => "unused");
  const trigger = { connectionId: "{{trigger.connectionId}}", bucket: "{{trigger.bucket}}" };
  preset = await e.api<Preset>("POST", "/v1/presets", {
    name: "publish",
    webhookUrl: receiver.url,
    steps: [
      {
        id: "transcribe",
        serviceType: "transcription",
        input: { sourceType: "s3_direct", ...trigger, sourceKey: "{{trigger.key}}", options: { language: "en" } },
      },
      { id: "clips", serviceType: "clip_generation", input: { textSourceId: "{{transcribe.textSourceId}}", options: { maxClips: 1 } } },
      { id: "dub", serviceType: "dubbing", input: { transcriptionId: "{{transcribe.textSourceId}}", targetLanguage: "es" } },
    ],
  });
  const conn = await e.api<{ eventSecret: string; eventsPath: string }>(
    "PUT",
    `/v1/storage-connections/${e.tenant.connectionId}/triggers`,
    {
      triggers: [{ bucket: e.tenant.bucket, prefix: "uploads/", suffixes: [".mp4"], presetId: preset.presetId }],
    },
  );
  e.stack.s3.addEventTarget({
    bucket: e.tenant.bucket,
    prefix: "uploads/",
    url: `${e.stack.apiBaseUrl}${conn.eventsPath}`,
    authToken: conn.eventSecret,
  });
}, 240_000);
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

async function workflowsFor(key: string): Promise<Workflow[]> {
  return (await e.api<Workflow[]>("GET", "/v1/workflows?limit=100")).filter((w) => w.trigger?.key === key);
}

async function waitForWorkflowEnd(key: string, timeoutMs: number): Promise<Workflow> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const [w] = await workflowsFor(key);
    const current = w ? await e.api<Workflow>("GET", `/v1/workflows/${w.workflowId}`) : null;
    if (current && ["completed", "failed", "cancelled"].includes(current.status)) return current;
    if (Date.now() > end) throw new Error(`workflow for ${key}: ${JSON.stringify(current)}\n${e.stack.logs().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

describe("trigger on upload end to end", () => {
  const key = "uploads/keynote.mp4";
  let done: Workflow;

  it("a file put in the bucket becomes a transcript, a clip and a Spanish dub, with no API call", async () => {
    await e.s3.putObject(e.tenant.bucket, key, await readFile(await speechVideo()), "video/mp4");
    done = await waitForWorkflowEnd(key, 600_000);
    expect(done.status, JSON.stringify(done.steps)).toBe("completed");
    expect(done.presetId).toBe(preset.presetId);
    const byId = Object.fromEntries(done.steps.map((s) => [s.id, s]));
    const transcript = await e.api<{ segments: Array<{ text: string }> }>(
      "GET",
      `/v1/transcriptions/${(await jobInput(byId["transcribe"]!.jobId!))["textSourceId"]}?layers=segments`,
    );
    expect(transcript.segments.map((s) => s.text).join(" ")).toMatch(/consider how much there might be/);
    const clips = await e.api<{ clips: Array<{ videoKey: string }> }>(
      "GET",
      `/v1/clip-generations/${(await jobInput(byId["clips"]!.jobId!))["clipGenerationId"]}`,
    );
    expect((await e.s3.headObject(e.tenant.bucket, clips.clips[0]!.videoKey))?.size).toBeGreaterThan(10_000);
    const dub = await e.api<{ artifacts: { video: string } }>("GET", `/v1/dubbings/${(await jobInput(byId["dub"]!.jobId!))["dubbingId"]}`);
    expect((await e.s3.headObject(e.tenant.bucket, dub.artifacts.video))?.size).toBeGreaterThan(10_000);
  }, 660_000);

  it("sends one webhook event for the whole workflow, naming every step's job", async () => {
    const events = () => receiver.received.filter((r) => r.body["workflowId"] === done.workflowId);
    for (let i = 0; i < 60 && events().length === 0; i++) await new Promise((r) => setTimeout(r, 500));
    expect(events()).toHaveLength(1);
    const event = events()[0]!.body as { type: string; workflow: Workflow };
    expect(event.type).toBe("workflow.completed");
    expect(event.workflow.steps.map((s) => s.jobId)).toEqual(done.steps.map((s) => s.jobId));
  });

  it("the same object version uploaded again starts nothing more", async () => {
    await e.s3.putObject(e.tenant.bucket, key, await readFile(await speechVideo()), "video/mp4");
    await e.stack.s3.eventsSettled();
    expect(await workflowsFor(key)).toHaveLength(1);
  });
});

async function jobInput(jobId: string): Promise<Record<string, unknown>> {
  return (await e.api<{ input: Record<string, unknown> }>("GET", `/v1/jobs/${jobId}`)).input;
}
