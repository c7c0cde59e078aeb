import type { CategoryEngine, CategoryRequest, CategoryResult } from "./interface";

/**
 * Category from evidence a person would use: the words (lexicons per category, counted per
 * thousand words) and the picture (how many faces, how fast the cuts). Each category's evidence
 * is summed; confidence is its softmax share, so a source that fits nothing clearly is reported
 * with low confidence instead of a confident guess.
 */

const LEXICONS: Record<string, readonly string[]> = {
  interview: [
    "interview",
    "guest",
    "question",
    "tell",
    "career",
    "experience",
    "welcome",
    "thanks",
    "joining",
    "asked",
    "story",
    "background",
  ],
  podcast: ["podcast", "episode", "listeners", "subscribe", "sponsor", "today", "show", "chat", "conversation", "host", "guys", "honestly"],
  gaming: ["game", "play", "level", "boss", "player", "kill", "loot", "spawn", "map", "match", "stream", "controller", "quest", "win"],
  education: [
    "learn",
    "example",
    "lesson",
    "chapter",
    "explain",
    "understand",
    "theory",
    "students",
    "equation",
    "study",
    "define",
    "history",
  ],
  presentation: [
    "slide",
    "agenda",
    "presentation",
    "quarter",
    "results",
    "strategy",
    "customers",
    "product",
    "roadmap",
    "team",
    "growth",
    "next",
  ],
  vlog: ["today", "day", "going", "vlog", "morning", "trip", "home", "coffee", "guys", "vlogging", "city", "friends", "went"],
  news: ["news", "report", "president", "government", "officials", "breaking", "according", "police", "minister", "election", "said"],
  sports: ["team", "goal", "season", "coach", "score", "league", "championship", "players", "match", "win", "ball", "game"],
};

/** Visual evidence per category, from the summary (each term 0..1, weighted below the words). */
function visualEvidence(category: string, v: CategoryRequest["visual"]): number {
  const faces = v.meanFaces ?? 0;
  const twoPeople = v.maxFaces !== null && v.maxFaces >= 2 ? 1 : 0;
  const oneFace = v.meanFaces !== null && faces >= 0.6 && faces <= 1.4 ? 1 : 0;
  const fastCuts = Math.min(1, v.cutsPerMinute / 20);
  const noFaces = v.meanFaces !== null && faces < 0.2 ? 1 : 0;
  switch (category) {
    case "interview":
      return 0.8 * twoPeople + 0.4 * Math.min(1, (v.speakers ?? 0) / 2);
    case "podcast":
      return 0.6 * twoPeople + 0.3 * (1 - fastCuts) + 0.2 * v.speechShare;
    case "gaming":
      return 0.7 * noFaces + 0.4 * fastCuts;
    case "education":
      return 0.4 * oneFace + 0.3 * v.speechShare + 0.2 * noFaces;
    case "presentation":
      return 0.5 * noFaces + 0.3 * (1 - fastCuts) + 0.2 * v.speechShare;
    case "vlog":
      return 0.7 * oneFace + 0.3 * fastCuts;
    case "news":
      return 0.3 * oneFace + 0.3 * fastCuts;
    case "sports":
      return 0.5 * fastCuts + 0.3 * noFaces;
    default:
      return 0;
  }
}

export class LocalLexiconCategoryEngine implements CategoryEngine {
  readonly engine = "local-lexicon";
  readonly model = "media-jobs category lexicon v1 (keywords + visual cues)";

  async classify(req: CategoryRequest): Promise<CategoryResult> {
    req.signal.throwIfAborted();
    const words = req.text.toLowerCase().match(/[a-z']+/g) ?? [];
    const counts = new Map<string, number>();
    for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
    const perThousand = 1000 / Math.max(50, words.length);
    const raw: Record<string, number> = {};
    for (const c of req.categories) {
      const lexicon = LEXICONS[c] ?? [c];
      const hits = lexicon.reduce((n, w) => n + (counts.get(w) ?? 0), 0);
      // Words: up to 2 points (about 10 lexicon words per thousand); picture: up to about 1.2.
      raw[c] = Math.min(2, (hits * perThousand) / 5) + visualEvidence(c, req.visual);
    }
    const max = Math.max(...Object.values(raw));
    const exp = Object.fromEntries(Object.entries(raw).map(([c, s]) => [c, Math.exp(3 * (s - max))]));
    const total = Object.values(exp).reduce((a, b) => a + b, 0);
    const scores = Object.fromEntries(Object.entries(exp).map(([c, e]) => [c, Math.round((e / total) * 1000) / 1000]));
    const [category, confidence] = Object.entries(scores).sort((a, b) => b[1] - a[1])[0] ?? [req.categories[0] ?? "vlog", 0];
    return { category, confidence, scores };
  }
}
