import { expect } from "vitest";
import type { Job } from "../../../contracts/job";
import type { LeasedTask } from "../../../contracts/runner-protocol";
import type { MetadataStepResult } from "../../../contracts/services/metadata";
import type { SummarizationStepResult } from "../../../contracts/services/summarization";
import { call } from "./api";
import { fakeRunner, waitForStatus } from "./jobs";
import type { Tenant } from "./tenant";

/**
 * Metadata, summarization and indexer jobs through the Worker, with the test playing the runner:
 * drafts as a text engine would return them, and a runner that leases a service's step.
 */

export async function createJob(tenant: Tenant, serviceType: string, input: Record<string, unknown>): Promise<Job> {
  const res = await call<Job>("POST", "/v1/jobs", { key: tenant.projectKey, body: { serviceType, input } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

export const GENERATED = { engine: "local-extractive", model: "textrank+texttiling", kind: "extractive" as const };

export function metadataDraft(overrides: Partial<MetadataStepResult> = {}): MetadataStepResult {
  return {
    title: "Segment number zero and friends",
    description: "segment number 0. segment number 1.",
    keywords: ["segment", "number"],
    categories: [{ id: "596", name: "Technology & Computing", tierPath: ["Technology & Computing"], confidence: 0.4 }],
    chapters: [
      { start: 0, segmentId: 0, title: "segment number 0" },
      { start: 2, segmentId: 1, title: "segment number 1" },
    ],
    generatedBy: GENERATED,
    transcriptRevision: 0,
    segmentCount: 3,
    durationSec: 6,
    ...overrides,
  };
}

export const SHORT_SYNOPSIS =
  "A talk that walks through segment number zero, then one, then two, in that order, and explains each with care. ".repeat(2).trim();

export function summaryDraft(overrides: Partial<SummarizationStepResult> = {}): SummarizationStepResult {
  return {
    shortSynopsis: SHORT_SYNOPSIS,
    longSynopsis: `${SHORT_SYNOPSIS} More follows.`,
    seoDescriptions: ["segment number 0.", "segment number 1.", "segment number 2."],
    socialHooks: ["segment number 0", "segment number 1", "segment number 2"],
    keywords: ["segment", "number", "zero", "one", "two"],
    classification: [],
    visualChunksUsed: [],
    generatedBy: GENERATED,
    speakers: [],
    transcriptRevision: 0,
    segmentCount: 3,
    visualChunkCount: 0,
    ...overrides,
  };
}

/** Leases the job's runner step with `handler`, lets `work` play the runner, and completes with its result. */
export async function runRunnerStep(
  tenant: Tenant,
  job: Job,
  handler: string,
  work: (task: LeasedTask) => Promise<Record<string, unknown>>,
): Promise<Job> {
  const task = await fakeRunner.leaseWhenReady(job.jobId, [handler]);
  const res = await fakeRunner.complete(task, await work(task));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return waitForStatus(tenant, job.jobId, "completed");
}
