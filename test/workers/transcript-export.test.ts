import { env } from "cloudflare:workers";
import { parse as parseDisposition } from "content-disposition";
import { unzipSync, strFromU8 } from "fflate";
import { parseSync } from "subtitle";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError } from "./helpers/api";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { said } from "../support/speaker-segments";
import { completedTranscriptOf, download } from "./helpers/transcript-files";
import { pendingTranscriptRow } from "./helpers/transcripts";

/**
 * GET /v1/transcriptions/{id}/export: the transcript as a file to save (Word, Markdown, SRT, WebVTT,
 * text, segments JSON), rendered from the transcript as it is now, names and edits included.
 */

const INTERVIEW = [
  said(0, "SPEAKER_00", "Where did the expedition start?", 0),
  said(1, "SPEAKER_01", "In the north, on the ridge.", 3),
  said(2, "SPEAKER_01", "Then we went down.", 6),
  said(3, "SPEAKER_00", "And then?", 3725),
];

let t: Tenant;
let interview: string;
beforeAll(async () => {
  t = await createTenant();
  interview = (await completedTranscriptOf(t, `${unique("src")}/Interview 3.mp4`, INTERVIEW)).textSourceId;
  // Names as the speakers route gives them: in the transcript's speaker list.
  await nameSpeakers(interview, { SPEAKER_00: "Ada" });
});

const exportOf = (id: string, query: string, key = t.projectKey) => download(`/v1/transcriptions/${id}/export?${query}`, key);

/** Names speakers in the row's speaker list, as a rename through the speakers route leaves it. */
async function nameSpeakers(id: string, names: Record<string, string>): Promise<void> {
  const row = await env.DB.prepare("SELECT speakers FROM transcripts WHERE id = ?").bind(id).first<{ speakers: string }>();
  const speakers = (JSON.parse(row!.speakers) as Array<{ label: string; name: string | null }>).map((s) => ({
    ...s,
    name: names[s.label] ?? s.name,
  }));
  await env.DB.prepare("UPDATE transcripts SET speakers = ? WHERE id = ?").bind(JSON.stringify(speakers), id).run();
}

describe("formats", () => {
  it.each([
    ["docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
    ["md", "text/markdown; charset=utf-8"],
    ["srt", "application/x-subrip; charset=utf-8"],
    ["vtt", "text/vtt; charset=utf-8"],
    ["txt", "text/plain; charset=utf-8"],
    ["json", "application/json"],
  ])("format=%s answers %s as an attachment named after the source", async (format, type) => {
    const res = await exportOf(interview, `format=${format}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="Interview 3.${format}"`);
    expect(res.bytes.length).toBeGreaterThan(0);
  });

  it("Markdown has the title, language and duration, a speakers table, and a paragraph per turn opened by the name and timecode", async () => {
    const md = (await exportOf(interview, "format=md")).text;
    expect(md).toMatch(/^# Interview 3\n\n- Language: en\n- Duration: 01:02:05\n/);
    expect(md).toContain("| Ada | SPEAKER_00 | 00:00:02 | 2 |");
    expect(md).toContain("| SPEAKER_01 | SPEAKER_01 | 00:00:03 | 2 |");
    expect(md).toContain(
      "**Ada** [00:00:00]\nWhere did the expedition start?\n\n" +
        "**SPEAKER_01** [00:00:03]\nIn the north, on the ridge. Then we went down.\n\n" +
        "**Ada** [01:02:05]\nAnd then?\n",
    );
  });

  it("Markdown escapes transcript text, so words never turn into headings, emphasis, links or HTML", async () => {
    const text = "# 1. *really* <b>big</b> [deal](x) | snake_case _under_";
    const { textSourceId } = await completedTranscriptOf(t, `${unique("src")}/talk.mp4`, [said(0, "SPEAKER_00", text, 0)]);
    const md = (await exportOf(textSourceId, "format=md")).text;
    expect(md).toContain("\n\\# 1. \\*really\\* \\<b\\>big\\</b\\> \\[deal\\](x) \\| snake_case \\_under\\_\n");
  });

  it("the Word document unzips, and its body has the heading, the speaker table and each turn with the name in bold", async () => {
    const res = await exportOf(interview, "format=docx");
    const files = unzipSync(res.bytes);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(["[Content_Types].xml", "word/document.xml"]));
    const xml = strFromU8(files["word/document.xml"]!);
    const texts = [...xml.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]);
    expect(texts.slice(0, 1)).toEqual(["Interview 3"]);
    expect(texts).toEqual(expect.arrayContaining(["Speakers", "Ada", "SPEAKER_01", "Speaking time", "[01:02:05]"]));
    expect(texts).toContain("In the north, on the ridge. Then we went down.");
    // The name's run is bold: <w:r><w:rPr><w:b/>…</w:rPr><w:t>Ada</w:t></w:r>, inside a paragraph with the turn's text.
    expect(xml).toMatch(/<w:r><w:rPr><w:b\/>(?:(?!<\/w:r>).)*<w:t(?: [^>]*)?>Ada<\/w:t><\/w:r>/);
  });

  it("SRT names the speaker where a turn starts and WebVTT opens every cue with a voice span, with the current names", async () => {
    const srt = parseSync((await exportOf(interview, "format=srt")).text).flatMap((n) => (n.type === "cue" ? [n.data.text] : []));
    expect(srt[0]).toBe("Ada: Where did the expedition start?");
    expect(srt.filter((text) => text.startsWith("SPEAKER_01: "))).toHaveLength(1);
    const vtt = parseSync((await exportOf(interview, "format=vtt")).text).flatMap((n) => (n.type === "cue" ? [n.data.text] : []));
    expect(vtt.every((text) => /^<v (Ada|SPEAKER_01)>/.test(text))).toBe(true);
  });

  it("plain text has a line per speaker turn", async () => {
    expect((await exportOf(interview, "format=txt")).text).toBe(
      "Ada: Where did the expedition start?\nSPEAKER_01: In the north, on the ridge. Then we went down.\nAda: And then?\n",
    );
  });

  it("the JSON carries the speaker list with the current names and each segment's speaker", async () => {
    const doc = JSON.parse((await exportOf(interview, "format=json")).text) as {
      speakers: Array<{ label: string; name: string | null }>;
      segments: Array<{ speaker?: string }>;
      diarization: unknown;
    };
    expect(doc.speakers.map((s) => s.name)).toEqual(["Ada", null]);
    expect(doc.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_01", "SPEAKER_00"]);
    expect(doc.diarization).toEqual({ engine: "test-diarizer", model: "test" });
  });

  it("speakers=false leaves names out of the files people read", async () => {
    expect((await exportOf(interview, "format=txt&speakers=false")).text).toBe(`${INTERVIEW.map((s) => s.text).join("\n")}\n`);
    expect((await exportOf(interview, "format=vtt&speakers=false")).text).not.toContain("<v ");
    expect((await exportOf(interview, "format=md&speakers=false")).text).not.toMatch(/Ada|## Speakers/);
  });
});

describe("the transcript as it is now", () => {
  it("a file asked for after a rename shows the new name", async () => {
    const { textSourceId } = await completedTranscriptOf(t, `${unique("src")}/talk.mp4`, INTERVIEW);
    expect((await exportOf(textSourceId, "format=txt")).text).toMatch(/^SPEAKER_00: /);
    await nameSpeakers(textSourceId, { SPEAKER_00: "Grace" });
    expect((await exportOf(textSourceId, "format=txt")).text).toMatch(/^Grace: /);
  });

  it("includes segment edits, says which revision it was rendered from, and layer=raw gives the engine's words", async () => {
    const { textSourceId } = await completedTranscriptOf(t, `${unique("src")}/talk.mp4`, INTERVIEW);
    const edit = await call("PATCH", `/v1/transcriptions/${textSourceId}/segments`, {
      key: t.projectKey,
      body: { revision: 1, segments: [{ id: 3, text: "And after that?" }] },
    });
    expect(edit.status).toBe(200);
    const current = await exportOf(textSourceId, "format=txt&speakers=false");
    expect(current.text).toContain("And after that?");
    expect(current.headers.get("x-transcript-revision")).toBe("2");
    expect((await exportOf(textSourceId, "format=txt&speakers=false&layer=raw")).text).toContain("And then?");
  });

  it("a transcript without speakers exports as the runner's files have always been: a line per segment, no voice spans", async () => {
    const plain = INTERVIEW.map(({ speaker: _, words, ...s }) => ({ ...s, words: words!.map(({ speaker: __, ...w }) => w) }));
    const { textSourceId } = await completedTranscriptOf(t, `${unique("src")}/talk.mp4`, plain);
    expect((await exportOf(textSourceId, "format=txt")).text).toBe(`${INTERVIEW.map((s) => s.text).join("\n")}\n`);
    expect((await exportOf(textSourceId, "format=md")).text).not.toContain("## Speakers");
  });
});

describe("file names", () => {
  const dispositionFor = async (sourceKey: string) => {
    const { textSourceId } = await completedTranscriptOf(t, sourceKey, INTERVIEW.slice(0, 1));
    return (await exportOf(textSourceId, "format=srt")).headers.get("content-disposition")!;
  };

  it("quotes, backslashes and semicolons in the source's name never reach the header's filename", async () => {
    const header = await dispositionFor(`${unique("src")}/Bob's "final"; cut\\2.mp4`);
    expect(header).toMatch(/^attachment; filename="[A-Za-z0-9 ._-]+\.srt"; filename\*=UTF-8''/);
    expect(parseDisposition(header, { extended: false }).parameters["filename"]).toBe("Bob_s _final_ cut_2.srt");
  });

  it("a line break in a stored source key (rows from before keys were checked) cannot split the header", async () => {
    const { textSourceId } = await completedTranscriptOf(t, `${unique("src")}/talk.mp4`, INTERVIEW.slice(0, 1));
    await env.DB.prepare("UPDATE transcripts SET source_key = ? WHERE id = ?").bind("in/evil\r\nSet-Cookie: a=b.mp4", textSourceId).run();
    const res = await exportOf(textSourceId, "format=srt");
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toBeNull();
    const header = res.headers.get("content-disposition")!;
    expect(header).not.toMatch(/[\r\n]/);
    expect(parseDisposition(header, { extended: false }).parameters["filename"]).toBe("evil_Set-Cookie_ a_b.srt");
  });

  it("a name beyond ASCII goes in filename* with an ASCII fallback in filename", async () => {
    const header = await dispositionFor(`${unique("src")}/Entrevista señora 東京.mp4`);
    const { parameters } = parseDisposition(header, { extended: false });
    expect(parameters["filename"]).toBe("Entrevista senora.srt");
    expect(parseDisposition(header).parameters["filename"]).toBe("Entrevista señora 東京.srt");
  });
});

describe("refusals", () => {
  const refusal = (id: string, query: string, key = t.projectKey) => call("GET", `/v1/transcriptions/${id}/export?${query}`, { key });

  it("a format it does not write is 422 validationError on query.format", async () => {
    const res = await refusal(interview, "format=pdf");
    expectError(res, 422, "validationError");
    expect(res.body.error?.details.map((d) => d.path)).toEqual(["query.format"]);
  });

  it("no format is 422 validationError", async () => {
    expectError(await refusal(interview, ""), 422, "validationError");
  });

  it("another project's transcript is 404 notFound", async () => {
    const other = await createTenant();
    expectError(await refusal(interview, "format=md", other.projectKey), 404, "notFound");
  });

  it("a transcript that is not completed is 422 jobNotCompleted", async () => {
    const pending = await pendingTranscriptRow(t.projectId);
    const res = await refusal(pending, "format=srt");
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "transcriptionId", issue: "jobNotCompleted" }]);
  });
});
