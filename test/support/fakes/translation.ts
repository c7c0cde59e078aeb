import type { ChatReply } from "./chat";

/**
 * What the fake translation models "say", shared by the fakes: Workers AI's m2m100 route
 * (workers-ai.ts) and, for language models asked for `{ "translations": [...] }`, the stand-in
 * chat reply `standInTranslator`. A fake translation is the text marked with the target language,
 * `[es] The house is big.`: predictable, and it keeps every word, as a model keeps a name.
 */
export function fakeTranslation(text: string, target: string): string {
  return `[${target}] ${text}`;
}

/**
 * `@cf/meta/m2m100-1.2b` as Cloudflare documents its input: `{ text, source_lang? (default "en"),
 * target_lang }`, answered `{ translated_text }`. Codes are checked against the model's languages
 * the way the model card lists them (ISO 639-1): a region (`pt-BR`) is refused.
 */
export function m2m100Output(input: Record<string, unknown>, languages: readonly string[]): unknown {
  const { text, source_lang: source = "en", target_lang: target } = input;
  if (typeof text !== "string") throw new Error("Type mismatch of '/text': a string is required");
  if (typeof target !== "string") throw new Error("Required properties are missing: target_lang");
  for (const [name, code] of [
    ["source_lang", source],
    ["target_lang", target],
  ] as const)
    if (typeof code !== "string" || !languages.includes(code)) throw new Error(`Invalid ${name}: ${String(code)}`);
  return { translated_text: fakeTranslation(text, target) };
}

/**
 * A stand-in language model for translation prompts: it reads the texts from the line
 * `{"texts": [...]}` of the conversation and the target from the instructions' "into <Name>
 * (<code>)", and answers `{"translations": [...]}` with a fake translation of each text. It knows
 * no language: it shows the texts reach the model and the answer comes back whole.
 */
export const standInTranslator: ChatReply = (turns) => {
  const all = turns.map((t) => t.content).join("\n");
  const line = /^\{"texts":.*\}$/m.exec(all)?.[0];
  const target = /into [^\n]*?\(([\w-]+)\)\./.exec(all)?.[1] ?? "xx";
  const texts = line ? ((JSON.parse(line) as { texts: string[] }).texts ?? []) : [];
  return JSON.stringify({ translations: texts.map((t) => fakeTranslation(t, target)) });
};
