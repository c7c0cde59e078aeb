import type { Segment, VisualChunk } from "../../contracts/transcript";
import type { TextDocument } from "../../gpu-runner/engines/text/interface";

/**
 * Transcript text for the text engine's tests and bench, written for this project (no third-party
 * text): talks on clearly different topics, spoken the way a transcript reads. Segments are timed
 * at 2.5 words a second (150 words a minute, an ordinary speaking rate).
 */

export const COOKING = [
  "Welcome back to the kitchen, today we are cooking a simple mushroom risotto.",
  "You only need Arborio rice, butter, onion, garlic, white wine, parmesan and a good vegetable stock.",
  "Start by warming the stock in a small pan, because cold stock stops the rice from cooking evenly.",
  "Chop the onion finely and soften it in butter over a medium heat for about five minutes.",
  "Add the garlic and the sliced mushrooms, and fry them until the mushrooms turn golden brown.",
  "Now tip in the rice and stir it for a minute so every grain is coated in butter.",
  "Pour in a glass of white wine and let it bubble until the pan smells sweet.",
  "Add the warm stock one ladle at a time, stirring the rice gently after each ladle.",
  "Did you know that stirring releases the starch that makes a risotto creamy?",
  "Keep adding stock for eighteen minutes, until the rice is soft but still has a little bite.",
  "Take the pan off the heat, beat in a knob of cold butter and a handful of grated parmesan.",
  "Season with salt and black pepper, then let the risotto rest for two minutes before serving.",
  "A few fresh thyme leaves on top make the dish look and taste even better.",
  "If you have leftover risotto, roll it into balls with mozzarella and fry them as arancini.",
  "That is the whole recipe, and it feeds four people for the price of a takeaway.",
];

export const FOOTBALL = [
  "Last night's football match between the two league leaders was the game of the season.",
  "The home team pressed high from the kick-off and forced three corners in the first ten minutes.",
  "Their striker finally scored from a header after twenty minutes, a brilliant goal from a cross on the left wing.",
  "The visitors changed their formation at half time, moving to three defenders and two wingers.",
  "That tactical change worked, because their midfield won the ball back again and again.",
  "The equaliser came from a penalty after the goalkeeper brought down their captain in the box.",
  "Why do referees still miss so many offside calls when the video review is right there?",
  "In the second half both coaches brought on fresh players to chase the winning goal.",
  "The home defence held firm, and their goalkeeper made two superb saves in stoppage time.",
  "A draw keeps both teams level on points at the top of the table with ten games to play.",
  "The championship will probably be decided by goal difference in the final match of the season.",
  "Supporters in the stadium sang for the whole ninety minutes despite the cold rain.",
  "Next week the league leaders travel away to face the team at the bottom of the table.",
  "You can watch the full highlights and the post-match interviews on the club channel.",
];

export const VIDEO_GAME = [
  "Hey everyone, welcome back to the playthrough, today we finally reach the fire temple boss.",
  "I upgraded my sword and my shield at the blacksmith, so my character should survive longer this time.",
  "The first level of the dungeon is full of skeleton enemies that respawn every thirty seconds.",
  "Grab the health potions in the chest on the left before you jump across the lava.",
  "The puzzle room needs you to push the three statues onto the glowing switches.",
  "Here is the boss fight, a giant dragon with three phases and a huge health bar.",
  "Dodge roll to the right when it breathes fire, then attack its tail for critical damage.",
  "In the second phase the dragon flies, so switch to the bow and aim for its wings.",
  "I died twice on this part in my last stream, so let's see if the new armour helps.",
  "Yes, the dragon is down, and it dropped a legendary weapon and a ton of experience points.",
  "That unlocks the next quest and the fast travel point in the mountain village.",
  "The game runs smoothly on the console at sixty frames per second, even in the big battles.",
  "Leave a comment with your best time for this boss and tell me which controller you play with.",
  "Next episode we explore the ice caves and try the new multiplayer mode with friends.",
];

export const TECHNOLOGY = [
  "In this review we test the new laptop with the latest processor and sixteen gigabytes of memory.",
  "The screen is bright and sharp, and the keyboard feels solid for long typing sessions.",
  "Battery life reached eleven hours in our web browsing test, which beats last year's model.",
  "The fans stay quiet during office work but get loud when you compile software or render video.",
  "It ships with two USB ports, a headphone jack and support for a fast external display.",
  "The operating system update adds a new artificial intelligence assistant that summarises your email.",
  "Developers will like the fast storage, because large projects open and build in seconds.",
  "Should you buy it today, or wait for the cheaper model that launches next month?",
  "For students and programmers the extra memory is worth the price, in our opinion.",
  "Security features include a fingerprint reader and encrypted storage by default.",
];

/** Talk that names no topic at all (for "fits nothing" classification). */
export const FILLER = [
  "So yeah, I mean, it was kind of like that, you know, and then it was just there again.",
  "Well, we were thinking about it for a while, and then we thought, okay, why not, let's see.",
  "It is what it is, and honestly that is fine, because things happen and then other things happen.",
  "Anyway, that was that, and we kept going the way we usually do, more or less the same as before.",
];

/** Spanish cooking talk, for the language-neutral method. */
export const SPANISH_COOKING = [
  "Hoy vamos a preparar una tortilla de patatas muy sencilla.",
  "Necesitamos patatas, huevos, cebolla, aceite de oliva y un poco de sal.",
  "Primero cortamos las patatas en láminas finas y las freímos en aceite a fuego medio.",
  "Mientras tanto batimos los huevos con la sal en un bol grande.",
  "¿Sabías que la cebolla hace la tortilla más jugosa?",
  "Mezclamos las patatas con los huevos y dejamos reposar la mezcla cinco minutos.",
  "Cuajamos la tortilla en la sartén y le damos la vuelta con un plato.",
  "La tortilla de patatas se sirve caliente o fría, y siempre está buena.",
];

/** Japanese (no spaces between words), for the language-neutral method. */
export const JAPANESE_COOKING = [
  "今日はとても簡単なカレーライスを作ります。",
  "玉ねぎと人参とじゃがいもを切って、鍋で炒めます。",
  "水を入れて二十分煮込んだら、カレーのルーを溶かします。",
  "ご飯にカレーをかけたら完成です。",
];

export const WORDS_PER_SECOND = 2.5;

const wordCount = (s: string): number => s.split(/\s+/).filter(Boolean).length;

/** Sentences as segments, `perSegment` sentences each, timed by their word count. */
export function segmentsOf(sentences: readonly string[], perSegment = 1, startAt = 0): Segment[] {
  const segments: Segment[] = [];
  let t = startAt;
  for (let i = 0; i < sentences.length; i += perSegment) {
    const text = sentences.slice(i, i + perSegment).join(" ");
    const dur = Math.max(1, wordCount(text)) / WORDS_PER_SECOND;
    segments.push({ id: segments.length, start: round(t), end: round(t + dur), text });
    t += dur;
  }
  return segments;
}

const round = (t: number): number => Math.round(t * 1000) / 1000;

/** A document from segments; the duration is the last segment's end unless given. */
export function docOf(segments: readonly Segment[], language = "en", durationSec?: number): TextDocument {
  const last = segments[segments.length - 1];
  return { textSourceId: "txt_fixture", language, durationSec: durationSec ?? last?.end ?? 0, segments };
}

/** Several talks one after the other (ids and times continue across them). */
export function concatenated(...talks: readonly (readonly string[])[]): Segment[] {
  return segmentsOf(talks.flat());
}

/**
 * A long transcript of about `targetWords` words: the four topic talks in turn, each pass rotating
 * the sentence order so passes differ (about 9000 words is an hour at 150 words a minute).
 */
export function longTranscript(targetWords = 9000): Segment[] {
  const talks = [COOKING, FOOTBALL, VIDEO_GAME, TECHNOLOGY];
  const sentences: string[] = [];
  let words = 0;
  for (let pass = 0; words < targetWords; pass++) {
    const talk = talks[pass % talks.length] ?? COOKING;
    const shift = Math.floor(pass / talks.length) % talk.length;
    for (const s of [...talk.slice(shift), ...talk.slice(0, shift)]) {
      sentences.push(s);
      words += wordCount(s);
    }
  }
  return segmentsOf(sentences, 2);
}

/** Visual chunks of `sceneSec` each over `durationSec`, with placeholder summaries. */
export function visualChunksOver(durationSec: number, sceneSec: number): VisualChunk[] {
  const chunks: VisualChunk[] = [];
  for (let start = 0, index = 0; start < durationSec; start += sceneSec, index++)
    chunks.push({ index, start, end: Math.min(durationSec, start + sceneSec), summary: `scene ${index}`, descriptors: {} });
  return chunks;
}

/** How the tests compare produced text with the transcript: whitespace collapsed, case folded. */
export const normalised = (s: string): string => s.replace(/\s+/g, " ").trim().toLowerCase();

export const transcriptText = (segments: readonly Segment[]): string => normalised(segments.map((s) => s.text).join(" "));
