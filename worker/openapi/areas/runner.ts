import { z } from "zod";
import {
  CompleteRequestSchema,
  EventsRequestSchema,
  EventsResponseSchema,
  FailRequestSchema,
  HeartbeatResponseSchema,
  LeaseRequestSchema,
  LeaseResponseSchema,
  LeaseTokenBodySchema,
  OkResponseSchema,
  ServiceCallRequestSchema,
  TranscriptDocumentSchema,
  TranscriptRequestSchema,
} from "../../../contracts/runner-protocol";
import { operations, type OperationDoc } from "../operation";

/**
 * worker/routes/runner.ts: the gpu-runner protocol (contracts/runner-protocol.ts), behind a runner
 * token. Described from the contract, not the route module, which needs the Workers runtime.
 */

const TAG = "Runner protocol";
const taskParam = { taskId: "The leased task's id." };
/** A lease that is no longer the caller's answers 409 leaseLost (stop work); a stale call 409 conflict. */
const leaseErrors: OperationDoc["errors"] = ["leaseLost", "conflict", "protocolError"];

const taskCall = (path: string, summary: string, body: z.ZodType, data: z.ZodType, description?: string): OperationDoc => ({
  method: "post",
  path: `/runner/v1/tasks/:taskId/${path}`,
  tag: TAG,
  summary,
  ...(description ? { description } : {}),
  access: "runner",
  params: taskParam,
  body,
  data,
  errors: leaseErrors,
});

export const runnerOperations = operations([
  {
    method: "post",
    path: "/runner/v1/lease",
    tag: TAG,
    summary: "Lease a task",
    description:
      "Claims the best available task the runner has handlers for, within its token's lanes and workspaces, long-polling up to `waitSeconds`; `task` is null when none came. A lease asking only for lanes outside the token's scope is 403.",
    access: "runner",
    body: LeaseRequestSchema,
    data: LeaseResponseSchema,
    errors: ["forbidden"],
  },
  taskCall("heartbeat", "Extend a lease", LeaseTokenBodySchema, HeartbeatResponseSchema, "Answers whether a cancel was requested."),
  taskCall("events", "Report progress events", EventsRequestSchema, EventsResponseSchema),
  taskCall("complete", "Complete a step", CompleteRequestSchema, OkResponseSchema),
  taskCall("fail", "Fail a step", FailRequestSchema, OkResponseSchema),
  taskCall("cancelled", "Acknowledge a cancel", LeaseTokenBodySchema, OkResponseSchema),
  taskCall("transcript", "Read the job's transcript", TranscriptRequestSchema, TranscriptDocumentSchema),
  {
    ...taskCall(
      "calls/:name",
      "Call a service's Worker-side function",
      ServiceCallRequestSchema,
      z.record(z.string(), z.unknown()),
      "Work only the Worker can do for a step (e.g. `catalog.write`); the service validates `body` with its own schema.",
    ),
    params: { ...taskParam, name: "The call's name, e.g. `catalog.write`." },
  },
  taskCall(
    "release",
    "Release a lease",
    LeaseTokenBodySchema,
    OkResponseSchema,
    "Gives the task back to the lane without counting an attempt.",
  ),
]);
