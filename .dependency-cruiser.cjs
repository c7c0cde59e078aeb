/**
 * The import graph's rules (`npm run lint` runs them): no circles, and no import that runs back up a
 * floor. Each area is a stack of floors, lowest first; a module may import its own floor or any floor
 * below, never one above. Test files are outside the graph (they may reach anything).
 */

/** The whole house: contracts at the ground, the runner and the job authority on it, the Worker above. */
const HOUSE = [["^contracts/"], ["^gpu-runner/", "^durable-objects/"], ["^queues/"], ["^worker/"], ["^scripts/"], ["^bench/"]];

/** Inside the Worker: ground types and stores, then auth and storage, the domains, services, the orchestrator, the surfaces. */
const WORKER = [
  ["^worker/(env|errors)\\.ts$", "^worker/db/", "^worker/platform/", "^worker/auth/principal\\.ts$", "^worker/http/server-timing\\.ts$"],
  ["^worker/http/", "^worker/auth/", "^worker/storage/"],
  ["^worker/accounts/", "^worker/transcripts/", "^worker/catalog/"],
  ["^worker/services/"],
  ["^worker/jobs/", "^worker/maintenance/", "^worker/deletion/", "^worker/workflows/"],
  ["^worker/routes/", "^worker/console/", "^worker/openapi/"],
  ["^worker/(app|index)\\.ts$"],
];

/** Inside the runner: leaf helpers, processes and media, engines, the step kit, services, the loop. */
const RUNNER = [
  ["^gpu-runner/(log|task-scope|stop-signals|work-dirs|config)\\.ts$", "^gpu-runner/net/", "^gpu-runner/text/"],
  ["^gpu-runner/child-process\\.ts$", "^gpu-runner/media/"],
  ["^gpu-runner/engines/"],
  ["^gpu-runner/(handler|protocol-client|storage|object-store|objects|stage-reporter|step-input|task-platform)\\.ts$"],
  ["^gpu-runner/services/"],
  ["^gpu-runner/(task-runner|runner|main)\\.ts$"],
];

const either = (patterns) => `(${patterns.join("|")})`;

function upwardRules(area, floors) {
  return floors.slice(0, -1).map((floor, i) => ({
    name: `${area}-floor-${i}-imports-upward`,
    comment: `${area}: ${floor.join(", ")} may not import a floor above it`,
    severity: "error",
    from: { path: either(floor) },
    // A file named on a low floor may sit in a folder named on a higher one (worker/auth/principal.ts).
    to: { path: either(floors.slice(i + 1).flat()), pathNot: either(floors.slice(0, i + 1).flat()) },
  }));
}

module.exports = {
  forbidden: [
    { name: "no-circular", comment: "an import loop", severity: "error", from: {}, to: { circular: true } },
    ...upwardRules("house", HOUSE),
    ...upwardRules("worker", WORKER),
    ...upwardRules("gpu-runner", RUNNER),
    {
      name: "the-sdk-is-the-customers",
      comment: "the typed client and the CLI run on customers' machines (the client also in browsers and Workers): contracts only",
      severity: "error",
      from: { path: "^sdk/" },
      to: { path: "^(gpu-runner|worker|durable-objects|queues|scripts|bench)/" },
    },
    {
      name: "the-client-is-fetch-only",
      comment: "the typed client runs in Node, browsers and Workers: it never imports the CLI",
      severity: "error",
      from: { path: "^sdk/client/" },
      to: { path: "^sdk/cli/" },
    },
    {
      name: "runner-never-imports-the-worker-side",
      comment: "the runner shares only contracts/ with the Worker, the job authority and the consumers",
      severity: "error",
      from: { path: "^gpu-runner/" },
      to: { path: "^(worker|durable-objects|queues)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)node_modules/|^test/|\\.test\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs"] },
  },
};
