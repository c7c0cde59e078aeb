import type { ClipLayout } from "../../../contracts/clips";
import type { VisualSummary } from "../../engines/category/interface";

/**
 * The layout of a job: the one requested, else (with auto layout) one that suits the category and
 * the picture, else the platform default. The reason is recorded so a customer can see why.
 *  - conversations (interview, podcast) with two or more people usually on screen at once: the
 *    whole shot in a portrait frame (`horizontal_in_vertical`), since a crop would cut someone out;
 *    with one person on screen at a time, a portrait crop that follows the speaker;
 *  - one person talking (vlog, education, news): a portrait crop that follows them;
 *  - screens and action (gaming, presentation, sports) or no faces at all: the whole picture.
 */
export function chooseLayout(a: {
  requested: ClipLayout | null;
  allowAuto: boolean;
  category: string | null;
  visual: VisualSummary;
  defaultLayout: ClipLayout;
  /** The plan's `supportedLayouts`: an automatic choice outside them falls back (create already refuses a request outside them). */
  supported?: readonly ClipLayout[];
}): { layout: ClipLayout; reason: string } {
  if (a.requested) return { layout: a.requested, reason: "requested" };
  const chosen = autoLayout(a);
  const supported = a.supported ?? [];
  if (supported.length === 0 || supported.includes(chosen.layout)) return chosen;
  const fallback = supported.includes(a.defaultLayout) ? a.defaultLayout : supported[0]!;
  return { layout: fallback, reason: `${chosen.reason}; ${chosen.layout} is not in this plan's layouts, so ${fallback}` };
}

function autoLayout(a: Parameters<typeof chooseLayout>[0]): { layout: ClipLayout; reason: string } {
  if (!a.allowAuto) return { layout: a.defaultLayout, reason: "platform default (auto layout is off for this plan)" };
  if (!a.category) return { layout: a.defaultLayout, reason: "platform default (no category)" };
  const faces = a.visual.meanFaces;
  const c = a.category;
  if (faces !== null && faces < 0.3)
    return { layout: "horizontal_in_vertical", reason: `${c}: almost no faces on screen, so the whole picture is kept` };
  if (c === "interview" || c === "podcast") {
    if (faces !== null && faces >= 1.5)
      return {
        layout: "horizontal_in_vertical",
        reason: `${c} with ${faces.toFixed(1)} faces on screen on average: a crop would cut someone out`,
      };
    return { layout: "vertical_9_16", reason: `${c} with one person on screen at a time: the crop follows the speaker` };
  }
  if (c === "gaming" || c === "presentation" || c === "sports")
    return { layout: "horizontal_in_vertical", reason: `${c}: the whole picture matters, so it is kept` };
  return { layout: "vertical_9_16", reason: `${c}: one person talking, the crop follows them` };
}
