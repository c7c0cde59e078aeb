/**
 * Reading the JSON object a hosted language model answers, whatever it was asked (a category, a
 * metadata draft, a summary). Chat models without a JSON mode, and some with one, wrap the object
 * in a markdown fence or a sentence; those are tolerated here, and anything else is left to the
 * caller to refuse with its own words.
 */

/** The JSON object in a model's text: the whole text, a fenced block, or the outermost braces; undefined when there is none. */
export function jsonObjectIn(text: string): Record<string, unknown> | undefined {
  const attempts = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fenced) attempts.push(fenced[1]!.trim());
  const open = text.indexOf("{");
  const close = text.lastIndexOf("}");
  if (open >= 0 && close > open) attempts.push(text.slice(open, close + 1));
  for (const candidate of attempts) {
    try {
      const value = JSON.parse(candidate) as unknown;
      if (isJsonObject(value)) return value;
    } catch {
      // the next candidate
    }
  }
  return undefined;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A short, one-line excerpt of an answer for an error message. */
export function answerExcerpt(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty)";
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
