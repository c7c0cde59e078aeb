import { nowIso } from "../../../contracts/clock";
import { newId } from "../../../contracts/ids";
import { PHRASE_TTL_MS, PHRASE_WORD_COUNT, PHRASE_WORDS, phraseText } from "../../../contracts/voice-consent";
import type { Db } from "../../db/client";
import { consentPhrases } from "../../db/schema";

/** `PHRASE_WORD_COUNT` words of the list, each drawn uniformly by the platform's CSPRNG (rejection sampling: no modulo bias). */
export function challengeWords(count = PHRASE_WORD_COUNT): string[] {
  const n = PHRASE_WORDS.length;
  const limit = 256 - (256 % n);
  const out: string[] = [];
  const byte = new Uint8Array(1);
  while (out.length < count) {
    crypto.getRandomValues(byte);
    if (byte[0]! < limit) out.push(PHRASE_WORDS[byte[0]! % n]!);
  }
  return out;
}

/** A new phrase for a recorded consent: stored, single use, until it expires. */
export async function issuePhrase(db: Db, projectId: string, speakerName: string | null) {
  const words = challengeWords();
  const createdAt = nowIso();
  const row = {
    id: newId("consentPhrase"),
    projectId,
    text: phraseText(words, speakerName),
    words,
    speakerName,
    language: "en",
    createdAt,
    expiresAt: new Date(Date.parse(createdAt) + PHRASE_TTL_MS).toISOString(),
    usedBy: null,
  };
  await db.insert(consentPhrases).values(row);
  return { phraseId: row.id, text: row.text, words, speakerName, language: row.language, createdAt, expiresAt: row.expiresAt };
}
