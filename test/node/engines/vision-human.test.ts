import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isStepFailure } from "../../../contracts/step-failure";
import { createVisionEngine } from "../../../gpu-runner/engines/vision/factory";
import type { Box, FrameObservation, VisionEngine } from "../../../gpu-runner/engines/vision/interface";
import type { LocalHumanEngine } from "../../../gpu-runner/engines/vision/local-human";

// Group photographs shipped with @vladmandic/face-api (1920 px wide), with the people in each.
const SAMPLES = path.resolve("node_modules/@vladmandic/face-api/demo");
const PEOPLE: Record<string, number> = { sample1: 3, sample4: 4, sample6: 4 };

let dir: string;
let engine: VisionEngine;
const frame = (name: string) => path.join(dir, `${name}.jpg`);
const never = () => new AbortController().signal;
const centreX = (b: Box) => b.x + b.width / 2;
const PAN_FRAMES = 6;
/** The pan over one photograph as frames 1/3 s apart from `t0`. */
const pan = (name: string, t0 = 0) => Array.from({ length: PAN_FRAMES }, (_, i) => ({ t: t0 + i / 3, path: frame(`${name}-pan-${i}`) }));
const lean = { bodies: false, eyes: false } as const;
const faceXs = (o: FrameObservation) => o.faces.map((f) => centreX(f.box)).sort((a, b) => a - b);
const inFrame = (b: Box) => b.x >= 0 && b.y >= 0 && b.width > 0 && b.height > 0 && b.x + b.width <= 1 + 1e-9 && b.y + b.height <= 1 + 1e-9;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "vision-human-"));
  for (const name of Object.keys(PEOPLE))
    await sharp(path.join(SAMPLES, `${name}.jpg`))
      .resize({ width: 960 })
      .toFile(frame(name));
  await sharp(path.join(SAMPLES, "sample6.jpg")).resize({ width: 480 }).toFile(frame("sample6-480"));
  await sharp(path.join(SAMPLES, "sample1.jpg")).resize({ width: 960 }).flop().toFile(frame("sample1-mirrored"));
  // A slow pan over two photographs: 640 px windows of each, moving 1 px a frame. Any two of a pan's
  // frames differ by less than a cut (Human's change measure stays under 1.5), whichever thread gets which.
  for (const name of ["sample1", "sample6"]) {
    const photo = await sharp(path.join(SAMPLES, `${name}.jpg`))
      .resize({ width: 960 })
      .toBuffer();
    const { height = 0 } = await sharp(photo).metadata();
    for (let i = 0; i < PAN_FRAMES; i++)
      await sharp(photo)
        .extract({ left: 100 + i, top: 0, width: 640, height: Math.min(height, 540) })
        .toFile(frame(`${name}-pan-${i}`));
  }
  const grey = { create: { width: 640, height: 360, channels: 3 as const, background: { r: 128, g: 128, b: 128 } } };
  await sharp(grey).jpeg().toFile(frame("grey"));
  // A 96 px checkerboard (8 px squares) in the top right of a flat grey frame.
  const patch = Buffer.alloc(96 * 96 * 3);
  for (let y = 0; y < 96; y++)
    for (let x = 0; x < 96; x++) patch.fill((Math.floor(x / 8) + Math.floor(y / 8)) % 2 ? 255 : 0, (y * 96 + x) * 3, (y * 96 + x) * 3 + 3);
  await sharp(grey)
    .composite([{ input: patch, raw: { width: 96, height: 96, channels: 3 }, left: 480, top: 40 }])
    .png()
    .toFile(path.join(dir, "patch.png"));
  // Two threads whatever the machine: the helper worker is part of what is tested.
  engine = createVisionEngine("local-human", { ...process.env, VISION_THREADS: "2" });
  // Loads the models once for the file, so the timings below are detection only.
  await engine.analyze([{ t: 0, path: frame("grey") }], { signal: never() });
});

afterAll(async () => {
  await engine?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("local-human vision engine", () => {
  it("records the human version and the models it runs", () => {
    expect(engine.engine).toBe("local-human");
    expect(engine.model).toBe("human-3.3.6 blazeface+facemesh+iris+movenet-lightning");
  });

  it("finds the faces in group photos", async () => {
    const names = Object.keys(PEOPLE);
    const obs = await engine.analyze(
      names.map((name, i) => ({ t: i, path: frame(name) })),
      { signal: never() },
    );
    names.forEach((name, i) => {
      const faces = obs[i]!.faces;
      expect(Math.abs(faces.length - PEOPLE[name]!), `${name}: ${faces.length} faces`).toBeLessThanOrEqual(1);
      for (const f of faces) {
        expect(inFrame(f.box)).toBe(true);
        expect(f.score).toBeGreaterThan(0.5);
      }
    });
  });

  it("normalises boxes to the frame, whatever its size", async () => {
    const [big, small] = await engine.analyze(
      [
        { t: 0, path: frame("sample6") },
        { t: 0, path: frame("sample6-480") },
      ],
      { signal: never() },
    );
    const xs = (o: FrameObservation) => o.faces.map((f) => centreX(f.box)).sort((a, b) => a - b);
    expect(xs(small!).length).toBe(xs(big!).length);
    xs(big!).forEach((x, i) => expect(Math.abs(x - xs(small!)[i]!)).toBeLessThan(0.03));
    for (const o of [big!, small!])
      for (const b of [...o.faces.map((f) => f.box), ...o.bodies.map((b) => b.box)]) expect(inFrame(b)).toBe(true);
  });

  it("gives mirrored face positions for a mirrored photo", async () => {
    const [plain, mirrored] = await engine.analyze(
      [
        { t: 0, path: frame("sample1") },
        { t: 0, path: frame("sample1-mirrored") },
      ],
      { signal: never() },
    );
    const xs = plain!.faces.map((f) => centreX(f.box)).sort((a, b) => a - b);
    const flipped = mirrored!.faces.map((f) => 1 - centreX(f.box)).sort((a, b) => a - b);
    expect(flipped.length).toBe(xs.length);
    xs.forEach((x, i) => expect(Math.abs(x - flipped[i]!)).toBeLessThan(0.03));
  });

  it("measures mouth opening as a number from 0 to 1 for every detected face", async () => {
    const obs = await engine.analyze([{ t: 0, path: frame("sample1") }], { signal: never() });
    const faces = obs[0]!.faces;
    expect(faces.length).toBeGreaterThan(0);
    for (const f of faces) {
      expect(typeof f.mouthOpen).toBe("number");
      expect(f.mouthOpen!).toBeGreaterThanOrEqual(0);
      expect(f.mouthOpen!).toBeLessThanOrEqual(1);
    }
  });

  it("leaves bodies and eye state out when asked, with the same faces and mouths", async () => {
    const frames = [{ t: 0, path: frame("sample1") }];
    const [all] = await engine.analyze(frames, { signal: never() });
    const [lean] = await engine.analyze(frames, { signal: never(), bodies: false, eyes: false });
    expect(all!.bodies.length).toBeGreaterThan(0);
    expect(lean!.bodies).toEqual([]);
    expect(lean!.faces.map((f) => f.eyesOpen)).toEqual(lean!.faces.map(() => null));
    const xs = (o: FrameObservation) => o.faces.map((f) => centreX(f.box)).sort((a, b) => a - b);
    expect(xs(lean!)).toEqual(xs(all!));
    const mouths = (o: FrameObservation) => o.faces.map((f) => [centreX(f.box), f.mouthOpen] as const).sort((a, b) => a[0] - b[0]);
    mouths(lean!).forEach(([, m], i) => expect(Math.abs(m! - mouths(all!)[i]![1]!)).toBeLessThan(0.02));
  });

  it("looks for bodies and eye state again on the next call that does not leave them out", async () => {
    const frames = [{ t: 0, path: frame("sample1") }];
    await engine.analyze(frames, { signal: never(), bodies: false, eyes: false });
    const [again] = await engine.analyze(frames, { signal: never() });
    expect(again!.bodies.length).toBeGreaterThan(0);
    expect(again!.faces.some((f) => f.eyesOpen !== null)).toBe(true);
  });

  it("spreads frames over this thread and a helper worker thread, in the order given back", async () => {
    const frames = Array.from({ length: 8 }, (_, i) => ({ t: i, path: frame(i % 2 ? "grey" : "sample4") }));
    const before = (engine as LocalHumanEngine).lanes();
    const obs = await engine.analyze(frames, { signal: never() });
    const after = (engine as LocalHumanEngine).lanes();
    expect(obs.map((o) => [o.t, o.faces.length > 0])).toEqual(frames.map((f, i) => [f.t, i % 2 === 0]));
    expect(after.map((l) => [l.thread, l.down])).toEqual([
      ["this", null],
      ["worker", null],
    ]);
    expect(after.map((l, i) => l.frames - before[i]!.frames).every((n) => n > 0)).toBe(true);
  });

  it("finds no faces in a blank grey frame and no off-centre salient region", async () => {
    const [obs] = await engine.analyze([{ t: 0, path: frame("grey") }], { signal: never() });
    expect(obs!.faces).toEqual([]);
    if (obs!.salient !== null) expect(Math.abs(centreX(obs!.salient) - 0.5)).toBeLessThan(0.05);
  });

  it("puts the salient region around the one textured patch", async () => {
    const [obs] = await engine.analyze([{ t: 0, path: path.join(dir, "patch.png") }], { signal: never() });
    const s = obs!.salient!;
    expect(s).not.toBeNull();
    // The patch spans x 480..576 of 640 and y 40..136 of 360.
    expect(s.x).toBeLessThanOrEqual(480 / 640);
    expect(s.x + s.width).toBeGreaterThanOrEqual(576 / 640);
    expect(s.y).toBeLessThanOrEqual(40 / 360);
    expect(s.y + s.height).toBeGreaterThanOrEqual(136 / 360);
  });

  it("stops with the signal's reason when aborted", async () => {
    const ac = new AbortController();
    const reason = new Error("job cancelled");
    const frames = Array.from({ length: 30 }, (_, i) => ({ t: i, path: frame("sample4") }));
    const started = Date.now();
    const run = engine.analyze(frames, { signal: ac.signal });
    setTimeout(() => ac.abort(reason), 50);
    await expect(run).rejects.toBe(reason);
    // 30 frames take several seconds; stopping between frames takes at most one.
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("returns one observation per frame, in order, with the frame's time", async () => {
    const frames = [
      { t: 12.5, path: frame("sample4") },
      { t: 0.25, path: frame("grey") },
      { t: 3, path: frame("sample1") },
    ];
    const obs = await engine.analyze(frames, { signal: never() });
    expect(obs.map((o) => o.t)).toEqual([12.5, 0.25, 3]);
    expect(obs.map((o) => o.faces.length > 0)).toEqual([true, false, true]);
  });

  it("follows faces through a still shot instead of detecting them on every frame", async () => {
    const frames = Array.from({ length: PAN_FRAMES }, (_, i) => ({ t: i / 3, path: frame("sample1-pan-0") }));
    const each = await engine.analyze(frames, { signal: never(), ...lean });
    const followed = await engine.analyze(frames, { signal: never(), ...lean, sequence: "still" });
    expect(each.map((o) => o.followed)).toEqual(frames.map(() => undefined));
    expect(followed[0]!.followed).toBe(false);
    expect(followed.filter((o) => o.followed).length).toBeGreaterThan(0);
    followed.forEach((o) => expect(faceXs(o).length).toBe(faceXs(each[0]!).length));
  });

  it("keeps the same faces where they are through a slow pan", async () => {
    const frames = pan("sample1");
    const each = await engine.analyze(frames, { signal: never(), ...lean });
    const followed = await engine.analyze(frames, { signal: never(), ...lean, sequence: "pan" });
    followed.forEach((o, i) => {
      expect(faceXs(o).length).toBe(faceXs(each[i]!).length);
      faceXs(o).forEach((x, k) => expect(Math.abs(x - faceXs(each[i]!)[k]!)).toBeLessThan(0.02));
    });
  });

  it("detects anew at a cut inside a sequence, finding the new shot's faces", async () => {
    const frames = [...pan("sample1"), ...pan("sample6", 2)];
    const obs = await engine.analyze(frames, { signal: never(), ...lean, sequence: "cut" });
    const alone = await engine.analyze(pan("sample6", 2), { signal: never(), ...lean });
    expect(obs[PAN_FRAMES]!.followed).toBe(false);
    obs.slice(PAN_FRAMES).forEach((o, i) => expect(faceXs(o).length).toBe(faceXs(alone[i]!).length));
  });

  it("looks again on the same frame for a followed face that moved away without a cut", async () => {
    // One face cut out of a photograph, small on a flat frame: moving it changes too few pixels for
    // Human to see a cut, so the frame is followed and the mesh finds nothing where the face was.
    const [found] = await engine.analyze([{ t: 0, path: frame("sample1") }], { signal: never(), ...lean });
    const box = found!.faces[0]!.box;
    const { width = 0, height = 0 } = await sharp(frame("sample1")).metadata();
    const face = await sharp(frame("sample1"))
      .extract({
        left: Math.round(box.x * width),
        top: Math.round(box.y * height),
        width: Math.round(box.width * width),
        height: Math.round(box.height * height),
      })
      .resize({ width: 90 })
      .toBuffer();
    const canvas = { create: { width: 960, height: 540, channels: 3 as const, background: { r: 110, g: 100, b: 95 } } };
    const at = async (name: string, left: number) =>
      sharp(canvas)
        .composite([{ input: face, left, top: 200 }])
        .jpeg()
        .toFile(frame(name));
    await at("lone-left", 120);
    await at("lone-right", 720);
    // The face jumps from side to side every frame: whichever thread gets which frames, the frames it
    // follows find nothing where the face was.
    const frames = Array.from({ length: 8 }, (_, i) => ({ t: i / 3, path: frame(i % 2 ? "lone-right" : "lone-left") }));
    const obs = await engine.analyze(frames, { signal: never(), ...lean, sequence: "jump" });
    expect(obs.map((o) => o.faces.length)).toEqual(frames.map(() => 1));
    expect(obs.map((o) => centreX(o.faces[0]!.box) > 0.5)).toEqual(frames.map((_, i) => i % 2 === 1));
  });

  it("never follows faces from another sequence or from a later frame", async () => {
    await engine.analyze(pan("sample1", 10), { signal: never(), ...lean, sequence: "a" });
    const [other] = await engine.analyze(pan("sample1", 12), { signal: never(), ...lean, sequence: "b" });
    const [earlier] = await engine.analyze(pan("sample1", 0), { signal: never(), ...lean, sequence: "b" });
    expect([other!.followed, earlier!.followed]).toEqual([false, false]);
  });

  // Last: it closes the file's engine. Human keeps models in module state, so engines share them and
  // the last close disposes them; a later engine must load them afresh rather than use disposed ones.
  it("loads the models afresh for a new engine once every engine is closed", async () => {
    await engine.close();
    await expect(engine.analyze([{ t: 0, path: frame("grey") }], { signal: never() })).rejects.toThrow(/closed/);
    const next = createVisionEngine("local-human", process.env);
    try {
      const [obs] = await next.analyze([{ t: 0, path: frame("sample4") }], { signal: never() });
      expect(obs!.faces.length).toBeGreaterThanOrEqual(3);
    } finally {
      await next.close();
    }
  });

  it("rejects an unknown engine name as engine_unavailable", () => {
    let err: unknown;
    try {
      createVisionEngine("hosted-vision", {});
    } catch (e) {
      err = e;
    }
    expect(isStepFailure(err) && err.code === "engine_unavailable" && err.retryable).toBe(true);
  });
});
