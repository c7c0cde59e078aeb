import { describe, expect, it } from "vitest";
import { LOCAL_SPEECH_LANGUAGES, speaksLanguage } from "../../../contracts/synthesis-languages";
import { espeakVoiceList } from "../../../gpu-runner/engines/synthesis/espeak-voices";

/** The Worker checks dubbing targets against a static list; it must be what the runner's eSpeak NG really has. */
describe("local speech languages", () => {
  it("are exactly the base languages the installed eSpeak NG speaks", () => {
    const installed = new Set(espeakVoiceList("espeak-ng").languages.map((l) => l.split("-")[0]!));
    expect([...LOCAL_SPEECH_LANGUAGES].sort()).toEqual([...installed].sort());
  });

  it("a region form is checked by its base language; hosted engines are asked at run time", () => {
    expect(speaksLanguage("local", "es-419")).toBe(true);
    expect(speaksLanguage("local", "xh")).toBe(false);
    expect(speaksLanguage("festival", "es")).toBe(false);
    expect(speaksLanguage("replicate", "xh")).toBe(true);
  });
});
