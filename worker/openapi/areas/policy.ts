import { z } from "zod";
import { DEFAULT_SETTINGS } from "../../../contracts/settings";
import { PolicyQuery } from "../../routes/policy";
import { workerService } from "../../services/index";
import { operations } from "../operation";

/** worker/routes/policy.ts: the one public API route. */
export const policyOperations = operations([
  {
    method: "get",
    path: "/v1/jobs/policy",
    tag: "Jobs",
    summary: "Get a service type's policy",
    description: "Limits and choices a client needs before it submits (durations, layouts, language pairs…). No key needed.",
    access: "public",
    query: PolicyQuery,
    data: z.looseObject({ serviceType: z.string() }),
    // What the route answers with the default platform settings, built by the same code.
    dataExample: { serviceType: "transcription", ...workerService("transcription").policy?.(DEFAULT_SETTINGS) },
  },
]);
