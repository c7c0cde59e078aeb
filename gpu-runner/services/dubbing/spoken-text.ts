/**
 * What a dubbed segment's voice reads: its translated text without redaction placeholders. A
 * redacted transcript's text carries `[PERSON]`, `[EMAIL]`, … where the entities were; translated, a
 * placeholder may come back in another case or language (`[Persona]`), but in its brackets. Read
 * aloud it would be a word the source never said, so every bracketed token is left out: with
 * silence, the words around it are joined by a pause (a comma); with the tone, the text is read in
 * pieces with a bleep between them (toned-speech.ts).
 */

/** A bracketed token: a placeholder as redaction writes it, or as a translation engine returned it. */
const PLACEHOLDER = /\s*\[[^\][]{1,40}\]\s*/g;

/** Punctuation alone is nothing to say. */
const sayable = (text: string) => /[\p{L}\p{N}]/u.test(text);

export function spokenText(text: string): string {
  const spoken = text
    .replace(PLACEHOLDER, ", ")
    // Pauses that met (two placeholders in a row, or one beside punctuation) make one.
    .replace(/(\s*,\s*)+/g, ", ")
    .replace(/\s*,\s*([.!?;:])/g, "$1")
    .replace(/^\s*[,;:]\s*|\s*[,;:]\s*$/g, "")
    .trim();
  return sayable(spoken) ? spoken : "";
}

/**
 * The text as pieces to read, null where placeholders were (placeholders in a row make one null);
 * pieces with nothing to say are left out. No null: the text had no placeholder.
 */
export function spokenPieces(text: string): Array<string | null> {
  const pieces: Array<string | null> = [];
  for (const [i, part] of text.split(PLACEHOLDER).entries()) {
    if (i > 0 && pieces.at(-1) !== null) pieces.push(null);
    const said = part.replace(/^\s*[,;:]\s*|\s*[,;:]\s*$/g, "").trim();
    if (sayable(said)) pieces.push(said);
  }
  return pieces;
}
