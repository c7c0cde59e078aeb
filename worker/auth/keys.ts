import { randomToken } from "../../contracts/ids";
import { sha256Hex } from "../platform/crypto";

export const KEY_PREFIX = { workspace: "sk_wsp_", project: "sk_prj_", console: "sk_con_" } as const;
export type KeyKind = keyof typeof KEY_PREFIX;

const KEY_PATTERN = /^sk_(wsp|prj|con)_[0-9a-z]{32}$/;

/** A new secret (shown once) and what is stored: only its hash and a display prefix. */
export async function mintSecret(kind: KeyKind): Promise<{ secret: string; hash: string; prefix: string }> {
  const secret = KEY_PREFIX[kind] + randomToken(32);
  return { secret, hash: await sha256Hex(secret), prefix: secret.slice(0, 11) };
}

export function looksLikeKey(secret: string): boolean {
  return KEY_PATTERN.test(secret);
}
