import type { z } from "zod";
import type { TranscriptDocument } from "../../contracts/runner-protocol";
import { StepFailure } from "../../contracts/step-failure";
import type { TaskPlatform } from "../../gpu-runner/handler";

/**
 * A TaskPlatform for handler tests: transcripts served from memory, service calls recorded and
 * answered by per-call functions the test sets (`answers`), with an optional fault on the n-th call
 * of a name (`failOn`), as the Worker's answers would come back through the protocol client.
 */
export class FakePlatform implements TaskPlatform {
  readonly calls: Array<{ name: string; body: unknown }> = [];
  readonly reads: string[] = [];
  answers: Record<string, (body: unknown) => unknown> = {};
  private faults = new Map<string, { nth: number; error: Error }>();

  constructor(private readonly docs: Record<string, TranscriptDocument>) {}

  /** The `nth` call (1-based) of `name` throws `error`. */
  failOn(name: string, nth: number, error: Error = new StepFailure("processing_failed", `${name} failed`, true)): this {
    this.faults.set(name, { nth, error });
    return this;
  }

  async transcript(id: string): Promise<TranscriptDocument> {
    this.reads.push(id);
    const doc = this.docs[id];
    if (!doc) throw new StepFailure("source_not_found", `transcription not found: ${id}`, false);
    return doc;
  }

  async call<T>(name: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    this.calls.push({ name, body });
    const fault = this.faults.get(name);
    if (fault && this.calls.filter((c) => c.name === name).length === fault.nth) throw fault.error;
    const answer = this.answers[name];
    if (!answer) throw new Error(`no answer for ${name}`);
    return schema.parse(answer(body));
  }

  callsOf(name: string): unknown[] {
    return this.calls.filter((c) => c.name === name).map((c) => c.body);
  }
}

/** A transcript document with one segment per text, `secondsEach` long. */
export function transcriptDoc(textSourceId: string, texts: readonly string[], secondsEach = 10, language = "en"): TranscriptDocument {
  return {
    textSourceId,
    language,
    durationSec: texts.length * secondsEach,
    revision: 1,
    segments: texts.map((text, id) => ({ id, start: id * secondsEach, end: (id + 1) * secondsEach, text })),
    speakers: [],
    visualChunks: [],
    redactedSpans: [],
  };
}
