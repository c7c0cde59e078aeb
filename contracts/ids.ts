/** Identifier prefixes from the spec's "Identifier prefixes" table. */
export const ID_PREFIX = {
  job: "job_",
  transcript: "txt_",
  translation: "trl_",
  dubbing: "dub_",
  voice: "vce_",
  metadata: "mdt_",
  clipGeneration: "clp_",
  summarization: "sum_",
  workspace: "wsp_",
  project: "prj_",
  apiKey: "pak_",
  user: "usr_",
  /** Not in the spec's table: console invitations (issue 10). */
  userInvitation: "inv_",
  storageConnection: "stc_",
  runnerTask: "rtk_",
  /** Not in the spec's table: a gpu-runner's credential, minted by the operator. */
  runnerToken: "rnt_",
  webhookEvent: "msg_",
  consoleSession: "cse_",
  glossaryTerm: "gls_",
  webhookDelivery: "whd_",
  /** Not in the spec's table: an entry of the audit log (issue 25). */
  auditEvent: "aud_",
  /** Not in the spec's table: a consent to clone a speaker's voice (issue 25). */
  voiceConsent: "vcn_",
  /** Not in the spec's table: a phrase a speaker reads for a recorded consent (single use). */
  consentPhrase: "vcp_",
  /** Not in the spec's table: a workflow of jobs (issue 26). */
  workflow: "wfl_",
  /** Not in the spec's table: a named workflow saved per project (issue 26). */
  preset: "pst_",
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Random base36 string; 20 chars gives ~103 bits, enough to make ids unguessable. */
export function randomToken(length = 20): string {
  const bytes = new Uint8Array(length);
  crypto.getRandomValues(bytes);
  let out = "";
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}

export function newId(kind: IdKind): string {
  return ID_PREFIX[kind] + randomToken(20);
}

export function hasPrefix(value: string, kind: IdKind): boolean {
  return value.startsWith(ID_PREFIX[kind]);
}
