import { adminRoutes } from "./admin";
import { consoleRoutes, projectRoutes, workspaceRoutes } from "./accounts";
import { jobRoutes } from "./jobs";
import { policyRoutes } from "./policy";
import { runnerRoutes } from "./runner";
import { storageConnectionRoutes } from "./storage-connections";
import { glossaryRoutes, thumbnailRoutes, transcriptRoutes } from "./transcripts";

/** Every sub-app, wired to its path in worker/app.ts. */
export const routes = {
  admin: adminRoutes,
  console: consoleRoutes,
  glossary: glossaryRoutes,
  jobs: jobRoutes,
  policy: policyRoutes,
  projects: projectRoutes,
  runner: runnerRoutes,
  storageConnections: storageConnectionRoutes,
  thumbnails: thumbnailRoutes,
  transcripts: transcriptRoutes,
  workspace: workspaceRoutes,
};
