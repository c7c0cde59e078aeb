import { parseArgs } from "node:util";
import { cosine } from "../contracts/embeddings/vectors";
import { embeddingEngineForWorker } from "../contracts/embeddings/worker-factory";
import {
  embedText,
  LocalWinkEmbeddingEngine,
  loadWinkModel,
  winkLoadStats,
  wordRows,
  type WinkModel,
} from "../gpu-runner/engines/embeddings/local-wink";
import { startEmbeddingsServer } from "../scripts/local-engines/embeddings-server";
import { fmt, machineInfo, table } from "./lib";

/**
 * The local embedding engine (local-wink): cold load of the word vectors (time, resident memory),
 * throughput on 40-second transcript chunks (about 100 words each) in the runner's process and
 * through the local engine process as the Worker reaches it, and retrieval quality of the shipped
 * pooling (SIF weights, common direction removed) against wink-nlp's plain mean on a small set of
 * catalog-style queries over transcript chunks.
 *
 *   npx tsx bench/embeddings.ts [--chunks 4000]
 */
const { values: args } = parseArgs({ options: { chunks: { type: "string", default: "4000" } } });
const chunks = Math.max(100, Number(args.chunks) || 4000);
const mib = (bytes: number) => bytes / 2 ** 20;

// Transcript-like chunks (~100 words, spoken style), and catalog-search queries with the chunk each should find.
const DOCS: Record<string, string> = {
  knives:
    "okay so today I want to show you how I keep my kitchen knives sharp. you take the whetstone, soak it in water for about ten minutes, and then you hold the blade at roughly fifteen degrees. light pressure, push away from you, and count your strokes so both sides get the same number. after a while you feel a little burr along the edge, that's how you know you're done with the coarse side. flip the stone to the fine grit and polish it. honestly a sharp knife is safer than a dull one because it doesn't slip.",
  bread:
    "so this is my sourdough starter, I've been feeding it for about a week now and you can see all the bubbles. we're going to mix the flour and water first and let it rest, that's the autolyse, then add the starter and the salt. every half hour I do a set of stretch and folds. the dough goes in the fridge overnight and tomorrow morning we bake it in a really hot dutch oven. the crust should crackle when it comes out, and you have to wait before you cut the loaf or the crumb gets gummy.",
  football:
    "what a match tonight. they were down two nil at half time and the manager made three substitutions, brought on the young striker, and he scores twice in ten minutes. the equaliser came from a corner, header at the near post, the keeper had no chance. then in stoppage time a penalty, and the captain steps up and puts it in the top corner. the fans were going crazy, that's a comeback people will remember for years. the league table looks completely different now with four games left in the season.",
  tennis:
    "the second set was all about the serve. she was hitting first serves at a hundred and twenty miles an hour and her opponent just couldn't return them. at five all there was a long rally from the baseline, thirty shots, and it ended with a drop shot that barely cleared the net. then the tiebreak, seven five, and she falls on the clay and the crowd is on its feet. it's her first grand slam title and she's only nineteen years old.",
  bitcoin:
    "let's talk about what happened in crypto this week. bitcoin dropped almost fifteen percent in two days after the exchange announced it was halting withdrawals. a lot of people who bought with leverage got liquidated. ethereum followed, and the smaller coins lost even more. my advice is the same as always, don't invest money you can't afford to lose, keep your coins in your own wallet, not on an exchange, and be very careful with anyone promising guaranteed returns on your tokens.",
  stocks:
    "the market closed lower today as investors worried about interest rates. the central bank signalled it might raise rates again to fight inflation, and bond yields went up. tech shares were hit the hardest, while energy companies gained because oil prices rose. earnings season starts next week, so we'll see how the big banks did last quarter. if you're a long term investor, index funds and dividends are still the boring but reliable way to build wealth.",
  camping:
    "we hiked about twelve kilometres up to the lake and set up the tent just before sunset. I brought the lightweight stove, so dinner was noodles and a cup of tea. the trick with camping in the mountains is layers, because it gets really cold at night even in summer. in the morning there was frost on the sleeping bag. we saw a couple of deer near the trail and heard owls all night. next time I want to try the longer route over the ridge to the glacier.",
  gardening:
    "this is the vegetable garden in late spring. the tomatoes are in, I planted them deep so they grow strong roots, and the beans are climbing up the trellis already. we mulch with straw to keep the soil moist and stop the weeds. the biggest problem this year has been slugs eating the lettuce, so I'm trying beer traps. compost from last year went into every bed. if you water in the early morning the leaves dry quickly and you get less mildew.",
  gpu: "in this video I'm benchmarking the new graphics card against last year's model. at four k resolution with ray tracing on, it's about forty percent faster, and the frame times are much more stable. power draw peaks around three hundred and fifty watts, so make sure your power supply can handle it. temperatures stayed under seventy degrees with the stock cooler. for machine learning workloads the extra memory makes a big difference, you can train bigger models without running out of vram.",
  phone:
    "I've been using this phone for two weeks, so here's my honest review. the screen is bright and the battery easily lasts a full day, even with the camera running a lot. photos in daylight look great, but at night the images get noisy. the charger isn't included in the box anymore, which is annoying. the software is clean, updates are promised for five years, and it feels fast. if you're coming from an older model the upgrade is worth it, otherwise maybe wait.",
  election:
    "the polls closed at eight and the first results came in from the rural districts. the governor's party is leading in the senate race but the house is still too close to call. turnout was the highest in decades, especially among young voters. both candidates gave speeches tonight, one claiming victory, the other saying every ballot must be counted. the recount in two counties could take a week. whoever wins will have to work with a divided congress on the budget.",
  climate:
    "scientists released a new report today on global warming. the last decade was the hottest on record and sea levels are rising faster than predicted. arctic ice is melting, and extreme weather like floods, droughts and wildfires is becoming more common. the report says emissions from coal and gas must fall by half within ten years to limit the damage. solar and wind power are now cheaper than fossil fuels in most countries, which gives some hope.",
  guitar:
    "in this lesson we're learning the basic open chords, g, c, d and e minor. place your fingers just behind the frets and press firmly so the strings ring clearly. strum down slowly at first, and once the changes feel smooth, add an up strum. practise switching between chords for five minutes every day, it builds the muscle memory. if your fingertips hurt, that's normal, you'll build calluses in a couple of weeks. tune your guitar before every session.",
  workout:
    "alright, welcome to today's workout. we start with a five minute warm up, jumping jacks and high knees. then three rounds of squats, push ups, lunges and a one minute plank. keep your back straight on the squats and push through your heels. rest thirty seconds between exercises. if push ups are too hard, do them on your knees. finish with stretching for your hamstrings and shoulders. drink water, and try to do this routine three times a week to build strength.",
  cat: "this is luna, she's a three year old rescue cat and she is very dramatic about breakfast. every morning at six she sits on my chest and meows until I get up. she loves chasing the laser pointer and sleeping in cardboard boxes. the vet said she needs to lose a little weight, so we switched her food. she gets along with the dog most of the time, but she still hisses at him when he gets too close to her bowl.",
  history:
    "in the summer of fourteen ninety two, columbus set sail from spain with three ships. the crew expected to reach asia by sailing west, and after more than two months at sea they landed on an island in the caribbean. the voyage changed the world, opening the way for european colonisation of the americas, the exchange of crops and animals, and also terrible suffering for the native peoples. historians still debate how to remember him.",
};

const QUERIES: [string, string][] = [
  ["how to sharpen a knife", "knives"],
  ["whetstone blade edge", "knives"],
  ["baking sourdough bread at home", "bread"],
  ["dough recipe flour yeast", "bread"],
  ["soccer comeback goal in the last minute", "football"],
  ["penalty kick striker scores", "football"],
  ["grand slam final tennis", "tennis"],
  ["crypto crash", "bitcoin"],
  ["cryptocurrency exchange withdrawals", "bitcoin"],
  ["stock market interest rates inflation", "stocks"],
  ["investing in shares", "stocks"],
  ["hiking and camping trip in the mountains", "camping"],
  ["tent by a lake", "camping"],
  ["growing tomatoes in the garden", "gardening"],
  ["vegetables and compost", "gardening"],
  ["graphics card benchmark", "gpu"],
  ["smartphone review battery camera", "phone"],
  ["election results votes", "election"],
  ["who won the senate", "election"],
  ["global warming report", "climate"],
  ["renewable energy solar wind", "climate"],
  ["learn guitar chords for beginners", "guitar"],
  ["home fitness exercises", "workout"],
  ["funny cat video", "cat"],
  ["christopher columbus voyage", "history"],
  ["explorers discover america", "history"],
];

/** wink-nlp's `as.vector`: the plain mean of the words' vectors (unit length here), for comparison. */
function plainMean(model: WinkModel, text: string): Float32Array {
  const { vectors } = model;
  const dims = vectors.dimensions;
  const acc = new Float64Array(dims);
  for (const r of wordRows(vectors, text)) for (let j = 0; j < dims; j++) acc[j]! += vectors.data[r * dims + j]!;
  const norm = Math.hypot(...acc) || 1;
  return Float32Array.from(acc, (x) => x / norm);
}

function retrieval(embed: (text: string) => Float32Array): { mrr: number; top1: number; unrelated: number; margin: number } {
  const docs = Object.entries(DOCS).map(([id, text]) => [id, embed(text)] as const);
  let mrr = 0;
  let top1 = 0;
  let margin = 0;
  for (const [query, want] of QUERIES) {
    const q = embed(query);
    const ranked = docs.map(([id, v]) => [id, cosine(q, v)] as const).sort((a, b) => b[1] - a[1]);
    const at = ranked.findIndex(([id]) => id === want);
    mrr += 1 / (at + 1);
    if (at === 0) top1++;
    margin += ranked[at]![1] - ranked.find(([id]) => id !== want)![1];
  }
  let unrelated = 0;
  let pairs = 0;
  for (let i = 0; i < docs.length; i++)
    for (let j = i + 1; j < docs.length; j++) {
      unrelated += cosine(docs[i]![1], docs[j]![1]);
      pairs++;
    }
  return { mrr: mrr / QUERIES.length, top1, unrelated: unrelated / pairs, margin: margin / QUERIES.length };
}

/** `n` chunks of 100 words: two sample chunks run together, rotated, so no two are the same. */
function transcriptChunks(n: number): string[] {
  const sources = Object.values(DOCS).map((t) => t.split(" "));
  return Array.from({ length: n }, (_, i) => {
    const words = [...sources[i % sources.length]!, ...sources[(i + 1) % sources.length]!];
    const shift = Math.floor(i / sources.length) % words.length;
    return [...words.slice(shift), ...words.slice(0, shift)].slice(0, 100).join(" ");
  });
}

console.log(machineInfo());
const rssBefore = process.memoryUsage.rss();
const model = await loadWinkModel();
const stats = winkLoadStats()!;
console.log(
  `\nload: ${fmt(stats.loadMs / 1000, 2)} s; resident ${fmt(mib(rssBefore), 0)} MiB before, ${fmt(mib(stats.rssBytes), 0)} MiB after ` +
    `(+${fmt(mib(stats.rssBytes - rssBefore), 0)}), peak ${fmt(process.resourceUsage().maxRSS / 1024, 0)} MiB; ` +
    `${model.vectors.size} words x ${model.vectors.dimensions} dims (${fmt(mib(model.vectors.data.byteLength), 0)} MiB of float32)`,
);

const texts = transcriptChunks(chunks);
const words = texts.reduce((n, t) => n + t.split(" ").length, 0) / texts.length;
const engine = new LocalWinkEmbeddingEngine();
await engine.embed(texts.slice(0, 200)); // warm-up
let started = performance.now();
await engine.embed(texts);
const inProcess = texts.length / ((performance.now() - started) / 1000);

const server = await startEmbeddingsServer({ port: 0 });
const client = embeddingEngineForWorker({ engine: "local-wink", baseUrl: server.url });
await client.embed(texts.slice(0, 200));
started = performance.now();
await client.embed(texts);
const throughServer = texts.length / ((performance.now() - started) / 1000);
await server.close();

console.log(`\nthroughput, ${texts.length} chunks of ${fmt(words, 0)} words:`);
console.log(
  table(
    ["path", "texts/s", "ms per text"],
    [
      ["runner, in process", fmt(inProcess, 0), fmt(1000 / inProcess, 3)],
      ["Worker client -> local engine process (32 per request)", fmt(throughServer, 0), fmt(1000 / throughServer, 3)],
    ],
  ),
);

const shipped = retrieval((t) => embedText(model, t));
const mean = retrieval((t) => plainMean(model, t));
console.log(`\nretrieval: ${QUERIES.length} queries over ${Object.keys(DOCS).length} chunks`);
console.log(
  table(
    ["pooling", "MRR", "right chunk first", "mean margin", "cosine between unrelated chunks"],
    [
      [
        "shipped: SIF weights, common direction removed",
        fmt(shipped.mrr, 3),
        `${shipped.top1}/${QUERIES.length}`,
        fmt(shipped.margin, 3),
        fmt(shipped.unrelated, 3),
      ],
      ["plain mean (wink-nlp as.vector)", fmt(mean.mrr, 3), `${mean.top1}/${QUERIES.length}`, fmt(mean.margin, 3), fmt(mean.unrelated, 3)],
    ],
  ),
);
