import { z } from "zod";
import { CreateConnectionSchema } from "../../routes/storage-connections";
import { operations } from "../operation";
import { EXAMPLE_ID } from "../examples";

/** worker/routes/storage-connections.ts: the project's S3-compatible stores. */

const TAG = "Storage connections";

const Connection = z.looseObject({
  connectionId: z.string(),
  name: z.string(),
  endpoint: z.string(),
  status: z.enum(["active", "inactive"]),
});
const CONNECTION_EXAMPLE = {
  connectionId: EXAMPLE_ID.storageConnection,
  projectId: EXAMPLE_ID.project,
  name: "main bucket",
  endpoint: "https://s3.eu-central-1.amazonaws.com",
  region: "eu-central-1",
  forcePathStyle: false,
  buckets: ["media"],
  accessKeyId: "AKIA…",
  defaultOutputPrefix: "svc-media-results",
  status: "active",
  createdAt: "2026-11-23T16:00:00.000Z",
  updatedAt: "2026-11-23T16:00:00.000Z",
};
const connectionParam = { connectionId: "The connection's id." };

export const storageConnectionOperations = operations([
  {
    method: "post",
    path: "/v1/storage-connections",
    tag: TAG,
    summary: "Create a storage connection",
    description: "Each bucket is checked with the credentials before the connection is stored; the secret is never answered.",
    access: "project",
    permission: "storage_connection:create",
    body: CreateConnectionSchema,
    bodyExample: {
      name: "main bucket",
      endpoint: "https://s3.eu-central-1.amazonaws.com",
      region: "eu-central-1",
      forcePathStyle: false,
      buckets: ["media"],
      accessKeyId: "AKIA…",
      secretAccessKey: "…",
    },
    status: 201,
    data: Connection,
    dataExample: CONNECTION_EXAMPLE,
  },
  {
    method: "get",
    path: "/v1/storage-connections",
    tag: TAG,
    summary: "List storage connections",
    access: "project",
    permission: "storage_connection:read",
    data: z.array(Connection),
    dataExample: [CONNECTION_EXAMPLE],
  },
  {
    method: "get",
    path: "/v1/storage-connections/:connectionId",
    tag: TAG,
    summary: "Get a storage connection",
    access: "project",
    permission: "storage_connection:read",
    params: connectionParam,
    data: Connection,
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/v1/storage-connections/:connectionId/deactivate",
    tag: TAG,
    summary: "Deactivate a storage connection",
    description: "New jobs can no longer use it; jobs already running finish.",
    access: "project",
    permission: "storage_connection:delete",
    params: connectionParam,
    data: Connection,
    errors: ["notFound"],
  },
]);
