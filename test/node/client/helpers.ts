import { MediaJobs, type MediaJobsOptions } from "../../../sdk/client";
import { startFakeApi, type FakeApi } from "../../support/fake-media-jobs-api";

/** A client against a fresh fake API whose waits are recorded instead of slept. */
export async function clientWithFake(options: Partial<MediaJobsOptions> = {}): Promise<{ api: FakeApi; mj: MediaJobs; sleeps: number[] }> {
  const api = await startFakeApi();
  const sleeps: number[] = [];
  const mj = new MediaJobs({
    baseUrl: api.url,
    apiKey: "sk_prj_test",
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { api, mj, sleeps };
}
