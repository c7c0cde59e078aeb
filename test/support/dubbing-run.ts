import type { S3Client } from "../../contracts/s3-client";
import {
  dubStep,
  DubbingStoredSchema,
  type DubbingSave,
  type PreviousDubbing,
  type TranscriptSpeakers,
} from "../../contracts/services/dubbing";
import type { TranslationSave, TranslationSource } from "../../contracts/services/translation";
import { stepSpec } from "../../contracts/services/types";
import { ApertiumCliEngine } from "../../gpu-runner/engines/translation/apertium-cli";
import { createDubbingHandler } from "../../gpu-runner/services/dubbing/handler";
import type { LocalS3 } from "../../scripts/lib/local-s3";
import { FakePlatform } from "./fake-platform";
import { makeHandlerContext, storageGrant, type RecordingReporter } from "./handler-context";

/**
 * One bucket dubbing on the runner's real handler and engines (Apertium, local diarization, eSpeak
 * NG voices, rubberband, ffmpeg) against a fake platform and a local S3: the dub translates the
 * given transcript into Spanish first, makes its speakers' voices, and may regenerate an earlier
 * dub (`previous`, with the record `dubbing.previous` answers). Shared by the regeneration tests and
 * bench/dub-regenerate.ts.
 */
export interface BucketDub {
  s3: LocalS3;
  bucket: string;
  sourceKey: string;
  dubbingId: string;
  transcript: TranslationSource;
  previous?: { input: PreviousDubbing; record: DubbingSave | null };
  transcriptSpeakers?: TranscriptSpeakers;
  cores?: number;
  /** Sees the stage reporter before the handler runs (the bench times each stage's CPU through it). */
  observe?: (report: RecordingReporter) => void;
}

export const dubPrefix = (dubbingId: string) => `out/${dubbingId}/`;

export async function runBucketDub(d: BucketDub) {
  const platform = new FakePlatform({});
  let made = 0;
  platform.answers = {
    "translation.source": () => d.transcript,
    "translation.save": (b) => ({ translationId: `trl_${d.dubbingId}`, segmentCount: (b as TranslationSave).segments.length }),
    "voices.create": () => ({ voiceId: `vce_${d.dubbingId}_${made++}` }),
    "dubbing.save": () => ({ dubbingId: d.dubbingId }),
    "dubbing.speakers": () => d.transcriptSpeakers ?? { turns: [], speakers: [], diarization: null },
    "dubbing.previous": () => ({ record: d.previous?.record ?? null }),
  };
  const txt = d.transcript.textSourceId;
  const ctx = await makeHandlerContext({
    input: {
      dubbingId: d.dubbingId,
      transcriptionId: txt,
      translationId: `trl_${d.dubbingId}`,
      sourceLanguage: "en",
      targetLanguage: "es",
      languageKey: "es",
      translation: {
        textSourceId: txt,
        translationId: `trl_${d.dubbingId}`,
        sourceLanguage: "en",
        sourceLanguageInferred: false,
        targetLanguage: "es",
        languageKey: "es",
        sourceLayer: "current",
        connectionId: "stc_test",
        bucket: d.bucket,
        resolvedOutputKeys: { srt: `${dubPrefix(d.dubbingId)}transcript.es.srt`, vtt: `${dubPrefix(d.dubbingId)}transcript.es.vtt` },
        engine: { backend: "apertium", model: null, pair: "eng-spa" },
      },
      sourceLayer: "current",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: d.bucket,
      sourceKey: d.sourceKey,
      resolvedOutputPrefix: dubPrefix(d.dubbingId),
      options: {
        diarization: { enabled: true, minSpeakers: null, maxSpeakers: null },
        voiceAssignments: {},
        voiceCloning: { enabled: true },
        tts: { enabled: true, modelId: null },
        ...(d.previous ? { regenerateFrom: d.previous.input.dubbingId } : {}),
      },
      assignedVoices: {},
      ...(d.previous ? { regenerateFrom: d.previous.input } : {}),
      engines: { speech: "local", speechModel: null, diarization: "local-mfcc", diarizationModel: null, mixLoudnessLufs: -16, duckDb: 18 },
    },
    storage: storageGrant(d.s3, d.bucket),
    platform,
    step: stepSpec("dubbing", dubStep),
    stored: DubbingStoredSchema,
    ...(d.cores ? { cores: d.cores } : {}),
  });
  d.observe?.(ctx.report);
  try {
    const result = await createDubbingHandler({ createTranslation: () => new ApertiumCliEngine() })(ctx);
    return { result, platform, report: ctx.report, save: platform.callsOf("dubbing.save")[0] as DubbingSave };
  } finally {
    await ctx.dispose();
  }
}

/** What a regeneration of `save` stores (as create resolves `options.regenerateFrom`): its artifacts and its speakers' voices. */
export function regenerateFrom(dubbingId: string, save: DubbingSave, platform: FakePlatform): PreviousDubbing {
  const made = platform.callsOf("voices.create") as Array<{ label: string; created: { spec: unknown } }>;
  const voices: PreviousDubbing["voices"] = {};
  for (const s of save.speakers) {
    const spec = made.find((m) => m.label === s.label)?.created.spec;
    if (s.voiceId && spec) voices[s.label] = { voiceId: s.voiceId, spec, referenceKey: null, voiceSource: s.voiceSource };
  }
  const a = save.artifacts;
  return { dubbingId, artifacts: { rawAudio: a.rawAudio!, vocals: a.vocals!, background: a.background!, speech: a.speech! }, voices };
}

/** A stored object's bytes. */
export async function objectBytes(client: S3Client, bucket: string, key: string): Promise<Buffer> {
  return Buffer.from(await (await client.getObject(bucket, key)).arrayBuffer());
}
