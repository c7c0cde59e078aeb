import type { Settings } from "../../../contracts/settings";
import { EngineConfig } from "../config";
import type { EngineEnv, EngineFactoryOptions, SpeechEngine } from "./interface";
import { LocalPocketSphinxEngine, pocketSphinxConfigFromEnv } from "./local-pocketsphinx";
import { OpenAICompatibleEngine } from "./openai-compatible";
import { REPLICATE_DEFAULT_MODEL, ReplicateEngine } from "./replicate";
import { WORKERS_AI_DEFAULT_MODEL, WorkersAIEngine } from "./workers-ai";

/**
 * Chooses the speech engine from platform settings (`transcription.speechEngine`, optional
 * `transcription.speechModel`); endpoints and secrets come from the runner's environment, never
 * from settings, so operators can change engines without secrets passing through the API. The
 * hosted backends' own variables are read by engines/config.ts (shared with other capabilities).
 *
 * Environment variables
 *   local-pocketsphinx   POCKETSPHINX_BIN (pocketsphinx_continuous), POCKETSPHINX_MODEL_DIR
 *                        (/usr/share/pocketsphinx/model/en-us), POCKETSPHINX_HMM, POCKETSPHINX_LM
 *                        (a trie .lm.bin for vocabulary to be added), POCKETSPHINX_DICT,
 *                        POCKETSPHINX_VOCABULARY_BOOST_LOG10 (-3: a vocabulary term's unigram
 *                        log10 probability), ESPEAK_NG_BIN (espeak-ng: pronunciations of terms)
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
 *                        REPLICATE_MAX_CONCURRENCY (default 4), REPLICATE_POLL_INTERVAL_MS (500)
 *   all network engines  SPEECH_HTTP_TIMEOUT_MS (per attempt; default and upper bound: the
 *                        handler's, shorter than the lease), SPEECH_HTTP_ATTEMPTS (4),
 *                        SPEECH_HTTP_BACKOFF_MS (1000), SPEECH_HTTP_MAX_BACKOFF_MS (20000)
 */
export function createSpeechEngine(settings: Settings["transcription"], env: EngineEnv, opts: EngineFactoryOptions = {}): SpeechEngine {
  const cfg = new EngineConfig(env, "speech");
  switch (settings.speechEngine) {
    case "local-pocketsphinx":
      return new LocalPocketSphinxEngine(pocketSphinxConfigFromEnv(env));
    case "openai-compatible": {
      const inputFormat = cfg.oneOf("OPENAI_COMPAT_AUDIO_FORMAT", ["mp3", "ogg", "wav"], "mp3");
      return new OpenAICompatibleEngine({
        ...cfg.openAICompatible(),
        model: cfg.optional("OPENAI_COMPAT_MODEL") ?? settings.speechModel ?? "whisper-1",
        inputFormat,
        maxConcurrency: cfg.positiveInt("OPENAI_COMPAT_MAX_CONCURRENCY", 4),
        retry: cfg.retryPolicy("SPEECH", opts.requestTimeoutMs),
      });
    }
    case "workers-ai":
      return new WorkersAIEngine({
        ...cfg.workersAI(),
        model: settings.speechModel ?? WORKERS_AI_DEFAULT_MODEL,
        maxConcurrency: cfg.positiveInt("WORKERS_AI_MAX_CONCURRENCY", 4),
        inputFormat: "mp3",
        retry: cfg.retryPolicy("SPEECH", opts.requestTimeoutMs),
      });
    case "replicate":
      return new ReplicateEngine({
        ...cfg.replicate(),
        model: settings.speechModel ?? REPLICATE_DEFAULT_MODEL,
        whisperModel: cfg.optional("REPLICATE_WHISPER_MODEL") ?? "large-v3",
        inputFormat: "mp3",
        maxConcurrency: cfg.positiveInt("REPLICATE_MAX_CONCURRENCY", 4),
        retry: cfg.retryPolicy("SPEECH", opts.requestTimeoutMs),
      });
  }
}
