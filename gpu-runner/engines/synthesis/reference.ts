import { createHash } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { StepFailure } from "../../../contracts/step-failure";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";
import { scratchRoot } from "../../task-scope";
import { wavInfo, type TimeRange } from "./audio";
import type { CloneVoiceSpec, CreateVoiceRequest } from "./interface";
import { measureVoice, type VoiceMeasurements } from "./voice-analysis";

/**
 * The reference clip a cloning model conditions on: the speaker's turns (or the whole sample)
 * joined, mono 22.05 kHz 16-bit WAV (XTTS-v2 resamples to 22.05 kHz itself), at most
 * REFERENCE_MAX_SEC: XTTS-v2 is documented for a 6 s clip and OpenAI's voices take at most 30 s;
 * 10 s is ~440 KB, small enough to travel inline as a data URI with every Replicate request.
 */
export const REFERENCE_MAX_SEC = 10;
const REFERENCE_RATE = 22_050;

export interface ReferenceClip {
  path: string;
  sha256: string;
  durationSec: number;
  /** The speaker as measured on the whole selection (recorded on the voice). */
  measured: VoiceMeasurements;
}

export async function makeReferenceClip(req: CreateVoiceRequest): Promise<ReferenceClip> {
  const scratch = await mkdtemp(path.join(scratchRoot(), "voice-ref-"));
  try {
    const measured = await measureVoice(req.sampleWavPath, {
      ...(req.ranges ? { ranges: req.ranges } : {}),
      signal: req.signal,
      scratchDir: scratch,
    });
    if (measured.speechSec < 1)
      throw new StepFailure(
        "processing_failed",
        `the voice sample has ${measured.speechSec} s of speech; cloning needs at least 1 s`,
        false,
      );
    await runToolOk(
      FFMPEG,
      [
        "-hide_banner",
        "-nostdin",
        "-y",
        "-loglevel",
        "error",
        ...fileInput(req.sampleWavPath),
        "-vn",
        "-af",
        [...selection(req.ranges), `aformat=sample_fmts=s16:channel_layouts=mono:sample_rates=${REFERENCE_RATE}`].join(","),
        "-t",
        String(REFERENCE_MAX_SEC),
        "-c:a",
        "pcm_s16le",
        req.referenceOutPath,
      ],
      { signal: req.signal },
    );
    return { path: req.referenceOutPath, ...(await clipFacts(req.referenceOutPath)), measured };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

export async function clipFacts(file: string): Promise<{ sha256: string; durationSec: number }> {
  const bytes = await readFile(file);
  return {
    sha256: createHash("sha256").update(bytes).digest("hex"),
    durationSec: Math.round((await wavInfo(file)).durationSec * 1000) / 1000,
  };
}

/** The clip of a clone voice, checked against the digest the voice recorded, as a data URI. */
export async function referenceDataUri(
  voice: CloneVoiceSpec,
  referencePath: string | undefined,
  fail: (m: string) => Error,
): Promise<string> {
  if (!referencePath) throw fail("this voice sends its reference clip with each request, and none was given");
  const bytes = await readFile(referencePath);
  if (createHash("sha256").update(bytes).digest("hex") !== voice.reference.sha256)
    throw fail("the reference clip given is not the one this voice was made from");
  return `data:audio/wav;base64,${bytes.toString("base64")}`;
}

function selection(ranges: readonly TimeRange[] | undefined): string[] {
  const kept = (ranges ?? []).filter((r) => r.end > r.start);
  if (kept.length === 0) return [];
  return [`aselect='${kept.map((r) => `between(t\\,${r.start.toFixed(3)}\\,${r.end.toFixed(3)})`).join("+")}'`, "asetpts=N/SR/TB"];
}
