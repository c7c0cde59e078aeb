/**
 * The ids the document's examples use: each kind's real prefix (contracts/ids.ts) and shape (20
 * base36 characters), so an example reads like an answer of the API and validates as one.
 */
export const EXAMPLE_ID = {
  job: "job_4f9k2m7q1x8c5v3b6n0p",
  transcript: "txt_8s3d6f1g9h2j5k7l4z0x",
  workspace: "wsp_2a7c9e1g3i5k7m9o1q3s",
  project: "prj_6b8d0f2h4j6l8n0p2r4t",
  apiKey: "pak_3c5e7g9i1k3m5o7q9s1u",
  consoleSession: "cse_9d1f3h5j7l9n1p3r5t7v",
  user: "usr_5e7g9i1k3m5o7q9s1u3w",
  storageConnection: "stc_1f3h5j7l9n1p3r5t7v9x",
  glossaryTerm: "gls_7g9i1k3m5o7q9s1u3w5y",
  webhookDelivery: "whd_0h2j4l6n8p0r2t4v6x8z",
} as const;
