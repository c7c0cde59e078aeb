import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { StepFailure } from "../../contracts/step-failure";
import type { SpeechEngine } from "../../gpu-runner/engines/speech/interface";
import { checkLanguageHint } from "../../gpu-runner/services/transcription/languages";

/** An engine that takes any language but cannot tell which one it hears (OpenAI's diarizing model). */
const anyLanguageNoDetection = {
  engine: "openai-compatible",
  model: "gpt-4o-transcribe-diarize",
  detectsLanguage: false,
  languages: null,
  supportsLanguage: () => true,
} as const satisfies Pick<SpeechEngine, "engine" | "model" | "detectsLanguage" | "languages" | "supportsLanguage">;
const engine = anyLanguageNoDetection as unknown as SpeechEngine; // only the fields the check reads are set
const settings = (languages: string[]) => ({ ...DEFAULT_SETTINGS.transcription, supportedSourceLanguages: languages });

describe("the language of a job for an engine that cannot detect one", () => {
  it("is the platform's only language when the job names none", () => {
    expect(checkLanguageHint(undefined, settings(["en"]), engine)).toBe("en");
  });

  it("must be named by the job when the platform allows several", () => {
    expect(() => checkLanguageHint(undefined, settings(["en", "es"]), engine)).toThrow(StepFailure);
    expect(() => checkLanguageHint(undefined, settings(["en", "es"]), engine)).toThrow(/cannot detect the language.*send options.language/);
  });

  it("is the job's hint when it names one", () => {
    expect(checkLanguageHint("es", settings(["en", "es"]), engine)).toBe("es");
  });
});
