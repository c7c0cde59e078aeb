import { z } from "zod";

/**
 * What the text engines produce for `metadata` and `summarization`, validated by the same schemas
 * whichever engine made it (a hosted language model's JSON answer is checked against these before
 * anything is stored). Limits are the product's: a title a player can show on one line, an SEO
 * description a search engine shows whole, a hook that fits a social post's first line.
 */

export const TITLE_MAX = 70;
export const DESCRIPTION_MAX = 300;
export const SHORT_SYNOPSIS_MAX = 280;
export const LONG_SYNOPSIS_MAX = 2000;
export const SEO_DESCRIPTION_MAX = 160;
export const SOCIAL_HOOK_MAX = 100;
export const SHORT_SYNOPSIS_PREVIEW_CHARS = 100;
export const METADATA_KEYWORDS_MAX = 15;
export const SUMMARY_KEYWORD_COUNT = 5;
export const IAB_CATEGORIES_MAX = 5;

/** One IAB Content Taxonomy 3.1 category (id and name as in the official file). */
export const IabCategorySchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  /** Tier 1 first, down to this category's own name. */
  tierPath: z.array(z.string().min(1)).min(1).max(4),
  /** 0..1. */
  confidence: z.number().min(0).max(1),
});
export type IabCategory = z.infer<typeof IabCategorySchema>;

/** A chapter starts where a transcript segment starts; the first starts at 0. */
export const ChapterSchema = z.object({
  start: z.number().nonnegative(),
  /** The segment the chapter opens with (its `start` is that segment's start; 0 for the first). */
  segmentId: z.number().int().nonnegative(),
  title: z.string().min(1).max(TITLE_MAX),
});
export type Chapter = z.infer<typeof ChapterSchema>;

export const MetadataDraftSchema = z.object({
  title: z.string().min(1).max(TITLE_MAX),
  description: z.string().min(1).max(DESCRIPTION_MAX),
  keywords: z.array(z.string().min(1)).max(METADATA_KEYWORDS_MAX),
  categories: z.array(IabCategorySchema).max(IAB_CATEGORIES_MAX),
  chapters: z.array(ChapterSchema).min(1),
});
export type MetadataDraft = z.infer<typeof MetadataDraftSchema>;

export const SummaryDraftSchema = z.object({
  shortSynopsis: z.string().min(1).max(SHORT_SYNOPSIS_MAX),
  longSynopsis: z.string().min(1).max(LONG_SYNOPSIS_MAX),
  seoDescriptions: z.array(z.string().min(1).max(SEO_DESCRIPTION_MAX)).length(3),
  socialHooks: z.array(z.string().min(1).max(SOCIAL_HOOK_MAX)).length(3),
  keywords: z.array(z.string().min(1)).length(SUMMARY_KEYWORD_COUNT),
  classification: z.array(IabCategorySchema).max(IAB_CATEGORIES_MAX),
  /** Indexes of the transcript's visual chunks (`video_analysis`) the summary drew on. */
  visualChunksUsed: z.array(z.number().int().nonnegative()),
});
export type SummaryDraft = z.infer<typeof SummaryDraftSchema>;

/** Who made a draft, as every record states it. `kind` keeps an extractive method from passing for a language model. */
export const GeneratedBySchema = z.object({
  engine: z.string(),
  model: z.string(),
  kind: z.enum(["extractive", "language-model"]),
});
export type GeneratedBy = z.infer<typeof GeneratedBySchema>;
