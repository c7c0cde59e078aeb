/**
 * What the fake language models "say", in a provider-neutral shape; each fake renders it in its
 * API's own format (OpenAI's chat completion, Workers AI's `result.response`). A test (or a
 * capability's harness) sets `fake.chatReply` to play the model it needs.
 */
export interface ChatTurn {
  role: string;
  content: string;
}

export interface ChatReplyContext {
  /** The request asked for JSON (OpenAI's `json_object`/`json_schema`, Workers AI's JSON mode). */
  json: boolean;
}

/** The model's whole answer to a conversation, as text. */
export type ChatReply = (messages: readonly ChatTurn[], ctx: ChatReplyContext) => string;

/** Until a test says otherwise: a greeting, or an empty object when JSON was asked for. */
export const DEFAULT_CHAT_REPLY: ChatReply = (_messages, { json }) => (json ? "{}" : "Hello! I am a fake language model.");

/** Tokens as the fakes count them: about four characters each. */
export function tokenCount(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A reply cut to `maxTokens`, with whether it was cut. */
export function limitTokens(text: string, maxTokens: number): { text: string; cut: boolean } {
  return tokenCount(text) <= maxTokens ? { text, cut: false } : { text: text.slice(0, maxTokens * 4), cut: true };
}

/**
 * Checks a `messages` array (`[{ role, content }]`, content a string or, for OpenAI, text parts)
 * against the roles allowed; throws with a message in the provider's spirit otherwise.
 */
export function chatTurns(value: unknown, roles: readonly string[]): ChatTurn[] {
  if (!Array.isArray(value) || value.length === 0) throw new Error("messages: a non-empty array is required");
  return value.map((m: unknown, i) => {
    const { role, content } = (m ?? {}) as Record<string, unknown>;
    if (typeof role !== "string" || !roles.includes(role)) throw new Error(`messages[${i}].role: must be one of ${roles.join(", ")}`);
    if (typeof content === "string") return { role, content };
    if (Array.isArray(content)) {
      const parts = content as { type?: unknown; text?: unknown }[];
      if (parts.every((p) => p?.type === "text" && typeof p.text === "string")) return { role, content: parts.map((p) => p.text).join("") };
    }
    throw new Error(`messages[${i}].content: a string is required`);
  });
}
