/** Values the Node-side global setup hands to tests (vitest `provide` / `inject`). */
declare module "vitest" {
  export interface ProvidedContext {
    s3: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string };
    /** A hostile customer server on loopback (test/workers/setup/global-hostile.ts). */
    hostile: string;
  }
}
export {};
