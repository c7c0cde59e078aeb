import { baseLanguage } from "./translation-languages";
import type { SPEECH_SYNTHESIS_ENGINES } from "./settings";

/**
 * The languages dubbing can speak, checked at create. The local engine speaks what Debian's eSpeak
 * NG 1.51 has (its `--voices` base codes, plus `zh` → Mandarin, `no` → Bokmål and `hbs` → Croatian; a test holds
 * this list to the installed binary); Festival's HTS voices (English, Catalan) are a subset. Hosted
 * engines are asked at run time (their models differ), so they are not checked here.
 */
export const LOCAL_SPEECH_LANGUAGES: readonly string[] = (
  "af am an ar as az ba be bg bn bpy bs ca chr cmn cs cv cy da de el en eo es et eu fa fi fr ga gd gn grc gu hak haw he hi hr ht hu hy hyw ia id io is it ja jbo ka kk kl kn ko kok ku ky la lb lfn lt ltg lv mi mk ml mr ms mt my nb nci ne nl nog om or pa pap pl pt py qdb qu quc qya ro ru sd shn si sjn sk sl smj sq sr sv sw ta te th tk tn tr tt ug uk ur uz vi yue" +
  " zh no hbs"
).split(" ");

export function speaksLanguage(engine: (typeof SPEECH_SYNTHESIS_ENGINES)[number], language: string): boolean {
  if (engine === "openai-compatible" || engine === "replicate") return true;
  if (engine === "festival") return ["en", "ca"].includes(baseLanguage(language));
  return LOCAL_SPEECH_LANGUAGES.includes(baseLanguage(language));
}
