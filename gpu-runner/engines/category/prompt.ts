import { z } from "zod";
import type { StepFailure } from "../../../contracts/step-failure";
import { type ChatMessage } from "../chat/interface";
import { UnreadableAnswer } from "../chat/unreadable-answer";
import { answerExcerpt as excerpt, jsonObjectIn } from "../json-answer";
import type { CategoryRequest, CategoryResult, VisualSummary } from "./interface";

/**
 * What hosted language models are asked, and how their answer is read, whatever the backend.
 *
 * The instructions (system message) list the allowed categories and ask for a JSON object
 * `{"category": …, "confidence": 0..1}` and nothing else; the user message carries the visual
 * summary's numbers and the start of the transcript (at most TRANSCRIPT_EXCERPT_CHARS, cut at a
 * word boundary: the opening of a video says what it is, and it keeps the prompt within small
 * models' context windows).
 *
 * The answer is validated: a JSON object (markdown fences or a sentence around it are tolerated,
 * since chat models without a JSON mode add them), a category from the list (matched ignoring case
 * and surrounding spaces, answered in the list's spelling) and a confidence in 0..1. Anything else
 * is a retryable failure naming engine and model: sampling again, or another runner, may do better.
 *
 * A model states one confidence, for its own answer, so `scores` records that one category only;
 * the other categories' shares are unknown rather than zero.
 */
export const TRANSCRIPT_EXCERPT_CHARS = 6000;
/** Room for the JSON answer (about 20 tokens), and for a sentence around it. */
export const ANSWER_MAX_TOKENS = 200;

export function categoryMessages(req: Pick<CategoryRequest, "text" | "visual" | "categories">): ChatMessage[] {
  const system = [
    "You classify a video into exactly one category, from the transcript of its speech and a summary of its picture.",
    `Allowed categories: ${req.categories.map((c) => JSON.stringify(c)).join(", ")}.`,
    'Answer with a JSON object only, no other text: {"category": <one of the allowed categories, spelled exactly as listed>, "confidence": <a number from 0 to 1: how sure you are>}.',
  ].join("\n");
  const user = [`Picture (from sampled frames):\n${describeVisual(req.visual)}`, transcriptSection(req.text)].join("\n\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

function describeVisual(v: VisualSummary): string {
  const num = (n: number) => String(Math.round(n * 100) / 100);
  const lines = [
    v.meanFaces === null || v.maxFaces === null
      ? "- faces per frame: unknown (no face detection)"
      : `- faces per frame: mean ${num(v.meanFaces)}, max ${num(v.maxFaces)}`,
    `- distinct speakers seen: ${v.speakers === null ? "unknown (no face detection)" : num(v.speakers)}`,
    `- scene cuts per minute: ${num(v.cutsPerMinute)}`,
    `- share of the video with speech: ${Math.round(v.speechShare * 100)}%`,
  ];
  return lines.join("\n");
}

function transcriptSection(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "Transcript: (no speech)";
  const excerpt = transcriptExcerpt(flat);
  const heading = excerpt.length < flat.length ? `Transcript (the first ${excerpt.length} of ${flat.length} characters):` : "Transcript:";
  return `${heading}\n"""\n${excerpt}\n"""`;
}

/** At most TRANSCRIPT_EXCERPT_CHARS, cut after the last whole word when one ends near the limit. */
export function transcriptExcerpt(text: string, max = TRANSCRIPT_EXCERPT_CHARS): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return space > max - 200 ? cut.slice(0, space) : cut;
}

const AnswerSchema = z
  .object({
    category: z.string(),
    confidence: z.number().min(0).max(1),
  })
  .loose();

/**
 * Reads a model's answer: `said` is its text (JSON, perhaps fenced or inside a sentence), an
 * object a JSON mode already parsed, or an UnreadableAnswer (nothing said). `fail` builds the error
 * (naming engine and model).
 */
export function readCategoryAnswer(said: unknown, categories: readonly string[], fail: (message: string) => StepFailure): CategoryResult {
  if (said instanceof UnreadableAnswer)
    throw fail(`answered ${said.reason}${said.finishReason ? ` (finish_reason ${said.finishReason})` : ""}`);
  const json = typeof said === "string" ? jsonObjectIn(said) : said;
  if (json === undefined) throw fail(`answered something that is not a JSON object: ${excerpt(String(said))}`);
  const parsed = AnswerSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    throw fail(
      `answered JSON that is not {category, confidence 0..1} (${where}${issue?.message ?? "invalid"}): ${excerpt(JSON.stringify(json))}`,
    );
  }
  const wanted = parsed.data.category.trim().toLowerCase();
  const category = categories.find((c) => c.trim().toLowerCase() === wanted);
  if (category === undefined)
    throw fail(`answered category ${JSON.stringify(parsed.data.category)}, which is not one of ${categories.join(", ")}`);
  const confidence = parsed.data.confidence;
  return { category, confidence, scores: { [category]: confidence } };
}
