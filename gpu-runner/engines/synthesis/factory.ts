import { EngineConfig } from "../config";
import { EspeakEngine } from "./espeak-ng";
import { FestivalEngine } from "./festival";
import type { EngineEnv, SynthesisEngine, SynthesisFactoryOptions } from "./interface";
import { LocalSynthesisEngine } from "./local";
import { OPENAI_COMPATIBLE_TTS_DEFAULT_MODEL, OpenAICompatibleSynthesisEngine, XTTS_LANGUAGES } from "./openai-compatible";
import { REPLICATE_TTS_DEFAULT_MODEL, ReplicateSynthesisEngine } from "./replicate";

/**
 * Chooses the speech synthesis engine by name (default `local`) and model (`opts.model`, the
 * platform's choice, e.g. the dubbing request's `tts.modelId`); endpoints and secrets come from the
 * runner's environment, never from settings. The hosted backends' own variables are read by
 * engines/config.ts (shared with other capabilities).
 *
 * Environment variables
 *   local, espeak-ng     ESPEAK_NG_BIN (default espeak-ng)
 *   local, festival      FESTIVAL_TEXT2WAVE (default text2wave), RUBBERBAND_BIN (default rubberband)
 *   openai-compatible    OPENAI_COMPAT_BASE_URL (required), OPENAI_COMPAT_API_KEY (optional),
 *                        OPENAI_COMPAT_TTS_MODEL (default: opts.model or gpt-4o-mini-tts; its own
 *                        variable because OPENAI_COMPAT_MODEL names the speech recognition model),
 *                        OPENAI_COMPAT_TTS_LANGUAGES (comma-separated codes, default XTTS-v2's 17),
 *                        OPENAI_COMPAT_VOICE_CONSENT (a consent recording id, sent when creating voices)
 *   replicate            REPLICATE_API_TOKEN (required), REPLICATE_BASE_URL,
 *                        REPLICATE_POLL_INTERVAL_MS (500); model default lucataco/xtts-v2;
 *                        RUBBERBAND_BIN (rate changes: XTTS-v2 has no speed input)
 *   all network engines  SYNTHESIS_HTTP_TIMEOUT_MS (per attempt; default and upper bound: the
 *                        handler's), SYNTHESIS_HTTP_ATTEMPTS (4), SYNTHESIS_HTTP_BACKOFF_MS (1000),
 *                        SYNTHESIS_HTTP_MAX_BACKOFF_MS (20000)
 */
export function createSynthesisEngine(name: string | undefined, env: EngineEnv, opts: SynthesisFactoryOptions = {}): SynthesisEngine {
  const cfg = new EngineConfig(env, "synthesis");
  const espeak = () => new EspeakEngine({ bin: cfg.optional("ESPEAK_NG_BIN") ?? "espeak-ng" });
  const festival = () =>
    new FestivalEngine({
      text2wave: cfg.optional("FESTIVAL_TEXT2WAVE") ?? "text2wave",
      rubberband: cfg.optional("RUBBERBAND_BIN") ?? "rubberband",
    });
  switch (name ?? "local") {
    case "local":
      return new LocalSynthesisEngine(festival(), espeak());
    case "espeak-ng":
      return espeak();
    case "festival":
      return festival();
    case "openai-compatible": {
      const languages = cfg
        .optional("OPENAI_COMPAT_TTS_LANGUAGES")
        ?.split(",")
        .map((l) => l.trim())
        .filter(Boolean);
      const consentId = cfg.optional("OPENAI_COMPAT_VOICE_CONSENT");
      return new OpenAICompatibleSynthesisEngine({
        ...cfg.openAICompatible(),
        model: cfg.optional("OPENAI_COMPAT_TTS_MODEL") ?? opts.model ?? OPENAI_COMPATIBLE_TTS_DEFAULT_MODEL,
        languages: languages?.length ? languages : XTTS_LANGUAGES,
        ...(consentId ? { consentId } : {}),
        retry: cfg.retryPolicy("SYNTHESIS", opts.requestTimeoutMs),
      });
    }
    case "replicate":
      return new ReplicateSynthesisEngine({
        ...cfg.replicate(),
        model: opts.model ?? REPLICATE_TTS_DEFAULT_MODEL,
        retry: cfg.retryPolicy("SYNTHESIS", opts.requestTimeoutMs),
        rubberband: cfg.optional("RUBBERBAND_BIN") ?? "rubberband",
      });
    default:
      throw cfg.misconfigured(`unknown synthesis engine ${name}`);
  }
}
