import type { Settings } from "../../../contracts/settings";
import { StepFailure } from "../../handler";
import { retryPolicyFromEnv } from "./http";
import type { EngineEnv, EngineFactoryOptions, SpeechEngine } from "./interface";
import { LocalPocketSphinxEngine, pocketSphinxConfigFromEnv } from "./local-pocketsphinx";
import { OpenAICompatibleEngine } from "./openai-compatible";
import { REPLICATE_DEFAULT_MODEL, ReplicateEngine } from "./replicate";
import { WORKERS_AI_DEFAULT_BASE_URL, WORKERS_AI_DEFAULT_MODEL, WorkersAIEngine } from "./workers-ai";

/**
 * Chooses the speech engine from platform settings (`transcription.speechEngine`, optional
 * `transcription.speechModel`); endpoints and secrets come from the runner's environment, never
 * from settings, so operators can change engines without secrets passing through the API.
 *
 * Environment variables
 *   local-pocketsphinx   POCKETSPHINX_BIN (pocketsphinx_continuous), POCKETSPHINX_MODEL_DIR
 *                        (/usr/share/pocketsphinx/model/en-us), POCKETSPHINX_HMM, POCKETSPHINX_LM,
 *                        POCKETSPHINX_DICT
 *   openai-compatible    OPENAI_COMPAT_BASE_URL (required, e.g. http://gpu-box:8000),
 *                        OPENAI_COMPAT_API_KEY (optional bearer token), OPENAI_COMPAT_MODEL
 *                        (default: settings speechModel or whisper-1), OPENAI_COMPAT_AUDIO_FORMAT
 *                        (mp3 | ogg | wav, default mp3; whisper.cpp's server without --convert
 *                        needs wav), OPENAI_COMPAT_MAX_CONCURRENCY (default 4)
 *   workers-ai           CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (required),
 *                        WORKERS_AI_BASE_URL (default https://api.cloudflare.com/client/v4),
 *                        WORKERS_AI_MAX_CONCURRENCY (default 4)
 *   replicate            REPLICATE_API_TOKEN (required), REPLICATE_BASE_URL (optional),
 *                        REPLICATE_WHISPER_MODEL (whisper checkpoint input, default large-v3),
 *                        REPLICATE_MAX_CONCURRENCY (default 4)
 *   all network engines  SPEECH_HTTP_TIMEOUT_MS (per attempt; default: shorter than the lease),
 *                        SPEECH_HTTP_ATTEMPTS (4), SPEECH_HTTP_BACKOFF_MS (1000),
 *                        SPEECH_HTTP_MAX_BACKOFF_MS (20000)
 */
export function createSpeechEngine(settings: Settings["transcription"], env: EngineEnv, opts: EngineFactoryOptions = {}): SpeechEngine {
  const retry = retryPolicyFromEnv(env, opts.requestTimeoutMs);
  const intEnv = (name: string, def: number) => {
    const v = Number(env[name]);
    return Number.isInteger(v) && v > 0 ? v : def;
  };
  switch (settings.speechEngine) {
    case "local-pocketsphinx":
      return new LocalPocketSphinxEngine(pocketSphinxConfigFromEnv(env));
    case "openai-compatible": {
      const format = env.OPENAI_COMPAT_AUDIO_FORMAT ?? "mp3";
      if (format !== "mp3" && format !== "ogg" && format !== "wav") throw misconfigured("OPENAI_COMPAT_AUDIO_FORMAT must be mp3, ogg or wav");
      return new OpenAICompatibleEngine({
        baseUrl: required(env, "OPENAI_COMPAT_BASE_URL"),
        ...(env.OPENAI_COMPAT_API_KEY ? { apiKey: env.OPENAI_COMPAT_API_KEY } : {}),
        model: env.OPENAI_COMPAT_MODEL ?? settings.speechModel ?? "whisper-1",
        inputFormat: format,
        maxConcurrency: intEnv("OPENAI_COMPAT_MAX_CONCURRENCY", 4),
        retry,
      });
    }
    case "workers-ai":
      return new WorkersAIEngine({
        baseUrl: env.WORKERS_AI_BASE_URL ?? WORKERS_AI_DEFAULT_BASE_URL,
        accountId: required(env, "CLOUDFLARE_ACCOUNT_ID"),
        apiToken: required(env, "CLOUDFLARE_API_TOKEN"),
        model: settings.speechModel ?? WORKERS_AI_DEFAULT_MODEL,
        maxConcurrency: intEnv("WORKERS_AI_MAX_CONCURRENCY", 4),
        inputFormat: "mp3",
        retry,
      });
    case "replicate":
      return new ReplicateEngine({
        apiToken: required(env, "REPLICATE_API_TOKEN"),
        model: settings.speechModel ?? REPLICATE_DEFAULT_MODEL,
        whisperModel: env.REPLICATE_WHISPER_MODEL ?? "large-v3",
        ...(env.REPLICATE_BASE_URL ? { baseUrl: env.REPLICATE_BASE_URL } : {}),
        inputFormat: "mp3",
        maxConcurrency: intEnv("REPLICATE_MAX_CONCURRENCY", 4),
        retry,
      });
  }
}

/** Retryable: another runner (or this one after the operator fixes its environment) may have it. */
function misconfigured(message: string): StepFailure {
  return new StepFailure("engine_unavailable", `speech engine is not configured on this runner: ${message}`, true);
}

function required(env: EngineEnv, name: string): string {
  const v = env[name];
  if (!v) throw misconfigured(`${name} is not set`);
  return v;
}
