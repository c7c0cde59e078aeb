import type { Segment, Speaker, VisualChunk } from "../../../contracts/transcript";
import { speakerDisplayName } from "../../../contracts/speakers";
import {
  DESCRIPTION_MAX,
  IAB_CATEGORIES_MAX,
  LONG_SYNOPSIS_MAX,
  METADATA_KEYWORDS_MAX,
  SEO_DESCRIPTION_MAX,
  SHORT_SYNOPSIS_MAX,
  SOCIAL_HOOK_MAX,
  SUMMARY_KEYWORD_COUNT,
  TITLE_MAX,
} from "../../../contracts/understanding";
import type { ChatMessage } from "../chat/interface";
import type { IabEntry } from "./iab-ids";
import type { TextDocument } from "./interface";

/**
 * What hosted language models are asked for `metadata` and `summarize`, whatever the backend.
 *
 * The system message states the task, the exact JSON shape with the limits of
 * contracts/understanding.ts, the rules (language, how chapters and scenes are referred to), the
 * IAB tier-1 categories, and "JSON only". The user message carries the transcript as
 * `[segmentId @ start s] text` lines and, for summaries, the visual chunks as
 * `#index start–end: summary` lines.
 *
 * Budgets. The smallest context among the default models is about 8,000 tokens (Workers AI's
 * llama-3.1-8b-instruct: 7,968; Llama 3 8B on Replicate: 8,192). The answer may take
 * ANSWER_MAX_TOKENS (1,500), the retry repeats the first answer (up to 1,500 more) and adds the
 * problems (~100), the instructions take about 550 (1,700–1,850 characters; the IAB ids are dense):
 * that leaves about 4,300 tokens for the material, at roughly 3–3.5 characters a token for
 * timestamped lines 10,000 characters of transcript and 2,000 of scenes. Lines are kept whole
 * (a chapter or a scene must be referable by what the model saw); a transcript too long for its
 * budget is shown as TRANSCRIPT_PASSAGES passages spread over the whole video, scenes from the
 * start; the heading says how much was left out. A first segment longer than the whole budget is cut at a word. Models
 * with larger windows (Workers AI's llama-3.1-8b-instruct-fast, 128K) are not given more,
 * so every backend writes from the same material.
 */
export const TRANSCRIPT_BUDGET_CHARS = 10_000;
export const VISUAL_BUDGET_CHARS = 2_000;
/** Room for the longest summary (about 3,300 characters of text, ~900 tokens) plus JSON punctuation. */
export const ANSWER_MAX_TOKENS = 1_500;

/** The part of the document the model is shown: the answer may refer to these segments and chunks only. */
export interface Shown {
  segments: readonly Segment[];
  segmentLines: readonly string[];
  /** Segments with text in the document. */
  segmentsWithText: number;
  /** Where the shown segments jump over left-out ones (indexes into `segments` that start a new passage). */
  passageStarts: readonly number[];
  chunks: readonly VisualChunk[];
  chunkLines: readonly string[];
  chunksTotal: number;
}

export function shownMaterial(doc: TextDocument, chunks: readonly VisualChunk[] = []): Shown {
  const spoken = doc.segments.filter((s) => flat(s.text) !== "");
  const speakers = doc.speakers ?? [];
  const segments = spreadWithinBudget(spoken, (seg: Segment) => segmentLine(seg, speakers), TRANSCRIPT_BUDGET_CHARS);
  const shownChunks = withinBudget(chunks, chunkLine, VISUAL_BUDGET_CHARS);
  return {
    segments: segments.items,
    segmentLines: segments.lines,
    segmentsWithText: spoken.length,
    passageStarts: segments.passageStarts,
    chunks: shownChunks.items,
    chunkLines: shownChunks.lines,
    chunksTotal: chunks.length,
  };
}

/** A segment as the model reads it; on a diarized transcript, its speaker's name (or label) before the words. */
export function segmentLine(s: Segment, speakers: readonly Speaker[] = []): string {
  const who = s.speaker !== undefined ? `${flat(speakerDisplayName(s.speaker, speakers))}: ` : "";
  return `[${s.id} @ ${seconds(s.start)} s] ${who}${flat(s.text)}`;
}

export function chunkLine(c: VisualChunk): string {
  return `#${c.index} ${seconds(c.start)}–${seconds(c.end)}: ${flat(c.summary) || "(no description)"}`;
}

/** Passages a long transcript is shown as: enough to place chapters across the whole video, each long enough to read as speech. */
export const TRANSCRIPT_PASSAGES = 8;

/**
 * Every line when all fit; otherwise TRANSCRIPT_PASSAGES passages spread evenly over the document
 * (it is cut into that many equal runs of segments, and each run shows whole lines from its start
 * within its share of the budget), so a model writing chapters or a synopsis of an hour-long video
 * sees its middle and its end, not only its first minutes.
 */
function spreadWithinBudget<T>(
  items: readonly T[],
  line: (item: T) => string,
  budget: number,
): { items: T[]; lines: string[]; passageStarts: number[] } {
  const all = withinBudget(items, line, budget);
  if (all.items.length === items.length || items.length <= TRANSCRIPT_PASSAGES) return { ...all, passageStarts: [] };
  const kept: T[] = [];
  const lines: string[] = [];
  const passageStarts: number[] = [];
  // Each passage's share, less the newline that joins it to the one before.
  const share = Math.floor(budget / TRANSCRIPT_PASSAGES) - 1;
  for (let p = 0; p < TRANSCRIPT_PASSAGES; p++) {
    const from = Math.floor((p * items.length) / TRANSCRIPT_PASSAGES);
    const to = Math.floor(((p + 1) * items.length) / TRANSCRIPT_PASSAGES);
    const part = withinBudget(items.slice(from, to), line, share);
    if (p > 0) passageStarts.push(kept.length);
    kept.push(...part.items);
    lines.push(...part.lines);
  }
  return { items: kept, lines, passageStarts };
}

/** Whole lines from the start while they fit `budget` characters (newlines counted); the first is always shown, cut at a word if it must be. */
function withinBudget<T>(items: readonly T[], line: (item: T) => string, budget: number): { items: T[]; lines: string[] } {
  const kept: T[] = [];
  const lines: string[] = [];
  let used = 0;
  for (const item of items) {
    const text = line(item);
    if (kept.length === 0 && text.length > budget) {
      kept.push(item);
      lines.push(cutAtWord(text, budget));
      break;
    }
    if (used + text.length + (kept.length > 0 ? 1 : 0) > budget) break;
    used += text.length + (kept.length > 0 ? 1 : 0);
    kept.push(item);
    lines.push(text);
  }
  return { items: kept, lines };
}

/** At most `max` characters, cut after the last whole word when one ends in the second half, marked with "…". */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, max - 1);
  // The room may end exactly where a word does.
  const space = /\s/.test(text[max - 1] ?? "") ? room.length : room.lastIndexOf(" ");
  const cut = (space > max / 2 ? room.slice(0, space) : room).replace(/[\s,;:.–-]+$/, "");
  return `${cut}…`;
}

export function metadataMessages(doc: TextDocument, shown: Shown, tier1: readonly IabEntry[]): ChatMessage[] {
  const first = shown.segments[0];
  const system = [
    "You write the metadata of a video from the transcript of its speech: a title, a description, keywords, IAB categories and chapters.",
    "Answer with a JSON object only, no other text, of exactly this shape:",
    `{"title": <string, at most ${TITLE_MAX} characters>, "description": <string, at most ${DESCRIPTION_MAX} characters>, ` +
      `"keywords": [<up to ${METADATA_KEYWORDS_MAX} distinct strings>], ` +
      `"categories": [<up to ${IAB_CATEGORIES_MAX} of {"id": <IAB Content Taxonomy 3.1 id>, "confidence": <number from 0 to 1>}>], ` +
      `"chapters": [<at least one {"segmentId": <id of the transcript segment the chapter opens with>, "title": <string, at most ${TITLE_MAX} characters>}, in order>]}`,
    "Rules:",
    `- Write in the language of the transcript (${doc.language}).`,
    `- Transcript lines read [segmentId @ start s] text. A chapter opens on a segment shown, by its segmentId; the first chapter opens with segment ${first?.id ?? 0}.`,
    ...iabRules(tier1),
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: [videoLine(doc), transcriptSection(shown)].join("\n\n") },
  ];
}

export function summaryMessages(doc: TextDocument, shown: Shown, tier1: readonly IabEntry[]): ChatMessage[] {
  const system = [
    "You summarise a video from the transcript of its speech and descriptions of its scenes: synopses, SEO descriptions, social media hooks, keywords and an IAB classification.",
    "Answer with a JSON object only, no other text, of exactly this shape:",
    `{"shortSynopsis": <string, at most ${SHORT_SYNOPSIS_MAX} characters>, "longSynopsis": <string, at most ${LONG_SYNOPSIS_MAX} characters>, ` +
      `"seoDescriptions": [<exactly 3 strings, each at most ${SEO_DESCRIPTION_MAX} characters>], ` +
      `"socialHooks": [<exactly 3 strings, each at most ${SOCIAL_HOOK_MAX} characters>], ` +
      `"keywords": [<exactly ${SUMMARY_KEYWORD_COUNT} distinct strings>], ` +
      `"classification": [<up to ${IAB_CATEGORIES_MAX} of {"id": <IAB Content Taxonomy 3.1 id>, "confidence": <number from 0 to 1>}>], ` +
      `"visualChunksUsed": [<the index of every scene description you drew on>]}`,
    "Rules:",
    `- Write in the language of the transcript (${doc.language}).`,
    "- Scene lines read #index start–end: description (times in seconds). visualChunksUsed lists indexes of scenes shown only; [] when you used none.",
    ...iabRules(tier1),
  ].join("\n");
  return [
    { role: "system", content: system },
    { role: "user", content: [videoLine(doc), transcriptSection(shown), scenesSection(shown)].join("\n\n") },
  ];
}

function iabRules(tier1: readonly IabEntry[]): string[] {
  return [
    "- Category ids are those of the IAB Content Taxonomy 3.1. Its tier-1 categories follow; a more specific tier-2 to tier-4 id is better when you know it.",
    `IAB tier-1 categories (id: name): ${tier1.map((c) => `${c.id}: ${c.name}`).join("; ")}.`,
  ];
}

/** The conversation of the one retry: the first request, what the model said (when it said something), and what was wrong with it. */
export function retryMessages(messages: readonly ChatMessage[], said: string | undefined, issues: readonly string[]): ChatMessage[] {
  return [
    ...messages,
    ...(said !== undefined && said.trim() !== "" ? [{ role: "assistant" as const, content: said }] : []),
    { role: "user", content: followUp(issues) },
  ];
}

export function followUp(issues: readonly string[]): string {
  return [
    "Your answer cannot be used as it is:",
    ...issues.map((i) => `- ${i}`),
    "Answer again with the whole JSON object, corrected, and nothing else.",
  ].join("\n");
}

function videoLine(doc: TextDocument): string {
  const who = doc.speakers && doc.speakers.length > 0 ? ` ${speakersLine(doc.speakers, doc.durationSec)}` : "";
  return `Video: ${seconds(doc.durationSec)} s long, language ${doc.language}.${who}`;
}

/** The speakers by name with their share of the speech, so the model can say who said what. */
function speakersLine(speakers: readonly Speaker[], durationSec: number): string {
  const total = speakers.reduce((n, s) => n + s.speakingSec, 0) || durationSec || 1;
  const list = speakers.map((s) => `${flat(s.name ?? s.label)} (${Math.round((100 * s.speakingSec) / total)} % of the speech)`);
  return `Speakers: ${list.join(", ")}.`;
}

function transcriptSection(shown: Shown): string {
  if (shown.segments.length === 0) return "Transcript: (no speech)";
  const n = shown.segments.length;
  if (n < shown.segmentsWithText && shown.passageStarts.length > 0) {
    const heading = `Transcript (${n} of ${shown.segmentsWithText} segments, in ${shown.passageStarts.length + 1} passages spread over the whole video; "…" marks the left-out segments between passages):`;
    const starts = new Set(shown.passageStarts);
    return `${heading}\n${shown.segmentLines.map((l, i) => (starts.has(i) ? `…\n${l}` : l)).join("\n")}`;
  }
  const heading =
    n < shown.segmentsWithText
      ? `Transcript (the first ${n} of ${shown.segmentsWithText} segments, up to ${seconds(shown.segments[n - 1]!.end)} s; the rest does not fit):`
      : `Transcript (${n} segment${n === 1 ? "" : "s"}):`;
  return `${heading}\n${shown.segmentLines.join("\n")}`;
}

function scenesSection(shown: Shown): string {
  if (shown.chunks.length === 0) return "Scenes: (none described)";
  const n = shown.chunks.length;
  const heading = n < shown.chunksTotal ? `Scenes (the first ${n} of ${shown.chunksTotal}; the rest do not fit):` : `Scenes (${n}):`;
  return `${heading}\n${shown.chunkLines.join("\n")}`;
}

function seconds(s: number): string {
  return s.toFixed(1);
}

function flat(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
