/**
 * What a dubbed segment's voice reads: its translated text without redaction placeholders. A
 * redacted transcript's text carries `[PERSON]`, `[EMAIL]`, … where the entities were; translated, a
 * placeholder may come back in another case or language (`[Persona]`), but in its brackets. Read
 * aloud it would be a word the source never said, so every bracketed token is left out and the
 * words around it are joined by a pause (a comma): the slot keeps its silence there.
 */

/** A bracketed token: a placeholder as redaction writes it, or as a translation engine returned it. */
const PLACEHOLDER = /\s*\[[^\][]{1,40}\]\s*/g;

export function spokenText(text: string): string {
  const spoken = text
    .replace(PLACEHOLDER, ", ")
    // Pauses that met (two placeholders in a row, or one beside punctuation) make one.
    .replace(/(\s*,\s*)+/g, ", ")
    .replace(/\s*,\s*([.!?;:])/g, "$1")
    .replace(/^\s*[,;:]\s*|\s*[,;:]\s*$/g, "")
    .trim();
  // Punctuation alone is nothing to say.
  return /[\p{L}\p{N}]/u.test(spoken) ? spoken : "";
}
