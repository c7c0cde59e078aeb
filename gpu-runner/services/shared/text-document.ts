import type { TranscriptDocument } from "../../../contracts/runner-protocol";
import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../../contracts/step-failure";
import type { HandlerContext } from "../../handler";
import { createTextEngine } from "../../engines/text/factory";
import type { EngineEnv, TextEngine } from "../../engines/text/interface";

/**
 * What the text services (metadata, summarization) share on the runner: the transcript read through
 * the platform, refused when it has nothing to write about, and the text engine platform settings name.
 */

/** A transcript whose segments carry no words: no engine can write about it, and a retry reads the same. */
export function requireText(doc: TranscriptDocument): TranscriptDocument {
  if (!doc.segments.some((s) => s.text.trim() !== ""))
    throw new StepFailure("no_segments", `transcription ${doc.textSourceId} has no segments with text`, false);
  return doc;
}

export async function readTranscript(ctx: Pick<HandlerContext, "platform">, textSourceId: string): Promise<TranscriptDocument> {
  return requireText(await ctx.platform.transcript(textSourceId));
}

/** Stage details of a loaded transcript. */
export const transcriptDetails = (doc: TranscriptDocument) => ({
  textSourceId: doc.textSourceId,
  segments: doc.segments.length,
  durationSec: doc.durationSec,
  language: doc.language,
  revision: doc.revision,
});

export type MakeTextEngine = (settings: Settings["understanding"], env: EngineEnv) => TextEngine;

/** Hosted models may take a while on a long transcript; one call stays well inside the lease's heartbeats. */
export const defaultTextEngine: MakeTextEngine = (s, env) =>
  createTextEngine(s.textEngine, env, { requestTimeoutMs: 120_000, ...(s.textModel ? { model: s.textModel } : {}) });
