/** An answer that never arrived as text or JSON (an empty message, Workers AI's "JSON Mode couldn't be met"). */
export class UnreadableAnswer {
  constructor(
    readonly reason: string,
    /** Why the model stopped, when the provider says (OpenAI's `finish_reason`). */
    readonly finishReason?: string | null,
  ) {}
}
