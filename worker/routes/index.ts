import { adminRoutes } from "./admin";
import { consoleRoutes, projectRoutes, workspaceRoutes } from "./accounts";
import { consolePublicRoutes, consoleUserRoutes } from "./console-auth";
import { deletionRoutes } from "./deletion";
import { jobRoutes } from "./jobs";
import { openAiTranscriptionRoutes } from "./openai-transcriptions";
import { policyRoutes } from "./policy";
import { runnerRoutes } from "./runner";
import { storageConnectionRoutes, storageTriggerRoutes } from "./storage-connections";
import { presetRoutes, workflowRoutes } from "./workflows";
import { voiceConsentCreateRoutes } from "./voice-consents";
import { voiceCreateRoutes } from "./voices";
import { regenerateRoutes } from "./regenerate";

/** Every platform sub-app, wired to its path in worker/app.ts (services bring their own record routes). */
export const routes = {
  admin: adminRoutes,
  console: consoleRoutes,
  consolePublic: consolePublicRoutes,
  consoleUser: consoleUserRoutes,
  deletion: deletionRoutes,
  jobs: jobRoutes,
  openAiTranscriptions: openAiTranscriptionRoutes,
  policy: policyRoutes,
  projects: projectRoutes,
  regenerate: regenerateRoutes,
  runner: runnerRoutes,
  storageConnections: storageConnectionRoutes,
  storageTriggers: storageTriggerRoutes,
  presets: presetRoutes,
  workflows: workflowRoutes,
  voiceConsentCreate: voiceConsentCreateRoutes,
  voiceCreate: voiceCreateRoutes,
  workspace: workspaceRoutes,
};
