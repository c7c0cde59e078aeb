/**
 * The chat-completion transports of the hosted language models, one per provider
 * (openai-compatible.ts, workers-ai.ts), shared by every capability that asks a model a question
 * (text: metadata and summaries; category). A transport sends a conversation in its provider's
 * format and resolves with what the model said; what is asked, how the answer is read, and what an
 * unreadable answer means (asked again, or failed) stay with the capability.
 */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export interface ChatOptions {
  maxTokens: number;
  signal: AbortSignal;
  /** The answer's JSON Schema, for a provider that holds decoding to one (Workers AI's JSON mode); absent, the model is not held to one. */
  jsonSchema?: Record<string, unknown>;
}
