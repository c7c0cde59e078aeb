import { beforeAll, describe, expect, it } from "vitest";
import type { Segment, Speaker } from "../../contracts/transcript";
import { CONSOLE_CSS } from "../../worker/console/styles";
import { SPEAKER_PALETTE } from "../../worker/console/speaker-colours";
import { call } from "./helpers/api";
import { signedIn, type Browser } from "./helpers/console";
import { open, postForms, submitForm } from "./helpers/console-pages";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, diarizedTranscript } from "./helpers/transcripts";

/** The console's transcript page with speakers (issue 24): the panel, the names on segment rows, and the rename, merge and move forms. */

let t: Tenant;
let other: Tenant;
let admin: Browser;

beforeAll(async () => {
  [t, other] = await Promise.all([createTenant({ plan: "enterprise" }), createTenant()]);
  ({ browser: admin } = await signedIn(t, "admin"));
});

interface TranscriptBody {
  revision: number;
  speakers: Speaker[];
  segments: Segment[];
}
const read = async (tenant: Tenant, id: string) =>
  (await call<TranscriptBody>("GET", `/v1/transcriptions/${id}`, { key: tenant.projectKey })).body.data;

/** A diarized transcript: SPEAKER_00, SPEAKER_01, SPEAKER_00, each segment 2 s. */
const conversation = async (tenant: Tenant = t) =>
  (await diarizedTranscript(tenant, ["SPEAKER_00", "SPEAKER_01", "SPEAKER_00"])).textSourceId;
const pageOf = (id: string) => `/console/transcripts/${id}`;

/** The speaker shown on each segment row, in order: its colour class and its name. */
function segmentSpeakers(html: string): Array<{ colour: string; name: string }> {
  return [...html.matchAll(/<p class="seg-speaker (spk-\d+)"><span class="swatch" aria-hidden="true"><\/span>([^<]*)<\/p>/g)].map((m) => ({
    colour: m[1] ?? "",
    name: m[2] ?? "",
  }));
}

const rename = (id: string, label: string, name: string, revision = 1, b = admin) =>
  submitForm(b, `${pageOf(id)}/speakers/rename`, { _csrf: b.csrfToken, revision: String(revision), label, name });

describe("the transcript page of a diarized transcript", () => {
  it("lists each speaker with a colour swatch, the name or label, speaking time as m:ss and the segment count", async () => {
    const id = await conversation();
    const { status, html } = await open(admin, pageOf(id));
    expect(status).toBe(200);
    const rows = [...html.matchAll(/<tr data-speaker="(SPEAKER_\d\d)">([\s\S]*?)<\/tr>/g)].map((m) => {
      const cells = [...(m[2] ?? "").matchAll(/<td>([\s\S]*?)<\/td>/g)].map((c) => c[1] ?? "");
      return {
        label: m[1],
        swatch: /<span class="speaker-name (spk-\d+)"><span class="swatch" aria-hidden="true"><\/span>/.exec(cells[0] ?? "")?.[1],
        text: cells.slice(0, 4).map((c) => c.replace(/<[^>]+>/g, "")),
      };
    });
    expect(rows).toEqual([
      { label: "SPEAKER_00", swatch: "spk-0", text: ["SPEAKER_00", "SPEAKER_00", "0:04", "2"] },
      { label: "SPEAKER_01", swatch: "spk-1", text: ["SPEAKER_01", "SPEAKER_01", "0:02", "1"] },
    ]);
  });

  it("shows each segment's speaker by name in that speaker's colour", async () => {
    const id = await conversation();
    expect(segmentSpeakers((await open(admin, pageOf(id))).html)).toEqual([
      { colour: "spk-0", name: "SPEAKER_00" },
      { colour: "spk-1", name: "SPEAKER_01" },
      { colour: "spk-0", name: "SPEAKER_00" },
    ]);
  });

  it("has a rename form per speaker, a merge form, and a move form per segment, each with the CSRF token and the page's revision", async () => {
    const id = await conversation();
    const { html } = await open(admin, pageOf(id));
    const actions = postForms(html).filter((f) => /\/(speakers|segments)\//.test(f.action));
    expect(actions.map((f) => f.action)).toEqual([
      `${pageOf(id)}/segments/0/speaker`,
      `${pageOf(id)}/segments/1/speaker`,
      `${pageOf(id)}/segments/2/speaker`,
      `${pageOf(id)}/speakers/rename`,
      `${pageOf(id)}/speakers/rename`,
      `${pageOf(id)}/speakers/merge`,
    ]);
    for (const f of actions) expect(f.csrf).toBe(admin.csrfToken);
    expect(html.match(/<input type="hidden" name="revision" value="1"\/>/g)).toHaveLength(actions.length);
  });

  it("the stylesheet colours every palette slot, so a speaker's class always has a colour", () => {
    for (const [i, colour] of SPEAKER_PALETTE.entries()) expect(CONSOLE_CSS).toContain(`.spk-${i}{--spk:${colour};color:${colour}}`);
  });
});

describe("a transcript without speakers", () => {
  it("has no speakers panel and no speaker controls", async () => {
    const { textSourceId: id } = await completedTranscript(t, ["hello there", "general kenobi"]);
    const { status, html } = await open(admin, pageOf(id));
    expect(status).toBe(200);
    expect(html).toContain("general kenobi");
    expect(html).not.toContain('id="speakers-h"');
    expect(html).not.toContain("seg-speaker");
    expect(postForms(html).filter((f) => /\/(speakers|segments)\//.test(f.action))).toEqual([]);
  });
});

describe("editing speakers from the page", () => {
  it("a rename saves the name, comes back with the notice, and the segment rows show the name", async () => {
    const id = await conversation();
    const res = await rename(id, "SPEAKER_01", "  Ada Lovelace ");
    expect(res.status, res.html.slice(0, 300)).toBe(303);
    expect(res.location).toBe(`${pageOf(id)}?done=speakerRenamed`);
    const b = await read(t, id);
    expect(b.revision).toBe(2);
    expect(b.speakers.map((s) => s.name)).toEqual([null, "Ada Lovelace"]);
    const page = await open(admin, res.location ?? "");
    expect(page.html).toContain("Speaker name saved.");
    expect(segmentSpeakers(page.html).map((s) => s.name)).toEqual(["SPEAKER_00", "Ada Lovelace", "SPEAKER_00"]);
  });

  it("an empty name clears the name, and the speaker shows as its label again", async () => {
    const id = await conversation();
    await rename(id, "SPEAKER_00", "Ada");
    expect((await rename(id, "SPEAKER_00", "   ", 2)).status).toBe(303);
    expect((await read(t, id)).speakers[0]?.name).toBeNull();
  });

  it("a merge moves every segment of one speaker to the other, which then speaks them all", async () => {
    const id = await conversation();
    const res = await submitForm(admin, `${pageOf(id)}/speakers/merge`, {
      _csrf: admin.csrfToken,
      revision: "1",
      from: "SPEAKER_01",
      into: "SPEAKER_00",
    });
    expect(res.location).toBe(`${pageOf(id)}?done=speakersMerged`);
    const b = await read(t, id);
    expect(b.speakers).toEqual([{ label: "SPEAKER_00", name: null, speakingSec: 6, segmentCount: 3 }]);
    expect(b.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_00", "SPEAKER_00"]);
  });

  it("the move form gives one segment, its words with it, to another speaker", async () => {
    const id = await conversation();
    const res = await submitForm(admin, `${pageOf(id)}/segments/2/speaker`, {
      _csrf: admin.csrfToken,
      revision: "1",
      speaker: "SPEAKER_01",
    });
    expect(res.location).toBe(`${pageOf(id)}?done=segmentMoved`);
    const b = await read(t, id);
    expect(b.segments.map((s) => s.speaker)).toEqual(["SPEAKER_00", "SPEAKER_01", "SPEAKER_01"]);
    expect(b.segments[2]?.words?.map((w) => w.speaker)).toEqual(["SPEAKER_01", "SPEAKER_01"]);
    expect(b.speakers.map((s) => [s.label, s.segmentCount])).toEqual([
      ["SPEAKER_00", 1],
      ["SPEAKER_01", 2],
    ]);
  });

  it("the move form offers a new speaker, and a segment moved there starts one", async () => {
    const id = await conversation();
    expect((await open(admin, pageOf(id))).html).toContain('<option value="SPEAKER_02">A new speaker (SPEAKER_02)</option>');
    await submitForm(admin, `${pageOf(id)}/segments/1/speaker`, { _csrf: admin.csrfToken, revision: "1", speaker: "SPEAKER_02" });
    expect((await read(t, id)).speakers.map((s) => s.label)).toEqual(["SPEAKER_00", "SPEAKER_02"]);
  });
});

describe("edits the API refuses", () => {
  it("a form from a stale revision changes nothing and shows the page as it is now, saying so", async () => {
    const id = await conversation();
    await call("PATCH", `/v1/transcriptions/${id}/speakers`, { key: t.projectKey, body: { revision: 1, names: { SPEAKER_00: "Grace" } } });
    const res = await rename(id, "SPEAKER_00", "Ada", 1);
    expect(res.status).toBe(409);
    expect(res.html).toMatch(
      /<p class="error" role="alert">Not saved: the transcript changed after this page was loaded \(it is now at revision 2\)/,
    );
    expect(res.html).toContain('<input type="hidden" name="revision" value="2"/>');
    expect((await read(t, id)).speakers[0]?.name).toBe("Grace");
  });

  it("a name the API does not take is shown with the API's reason, and nothing changes", async () => {
    const id = await conversation();
    const res = await rename(id, "SPEAKER_00", "x".repeat(101));
    expect(res.status).toBe(422);
    expect(res.html).toMatch(/<p class="error" role="alert">Not saved: [^<]*names\.SPEAKER_00/);
    expect((await read(t, id)).revision).toBe(1);
  });

  it("merging a speaker into itself is refused with the API's reason", async () => {
    const id = await conversation();
    const res = await submitForm(admin, `${pageOf(id)}/speakers/merge`, {
      _csrf: admin.csrfToken,
      revision: "1",
      from: "SPEAKER_01",
      into: "SPEAKER_01",
    });
    expect(res.status).toBe(422);
    expect(res.html).toContain("mergedAway");
    expect((await read(t, id)).speakers).toHaveLength(2);
  });

  it("a form without the CSRF token is refused, and the name is not saved", async () => {
    const id = await conversation();
    const res = await submitForm(admin, `${pageOf(id)}/speakers/rename`, { revision: "1", label: "SPEAKER_00", name: "Ada" });
    expect(res.status).toBe(403);
    expect((await read(t, id)).speakers[0]?.name).toBeNull();
  });

  it("a form from another origin is refused even with the token", async () => {
    const id = await conversation();
    const res = await submitForm(
      admin,
      `${pageOf(id)}/segments/0/speaker`,
      { _csrf: admin.csrfToken, revision: "1", speaker: "SPEAKER_01" },
      "https://evil.example",
    );
    expect(res.status).toBe(403);
    expect((await read(t, id)).segments[0]?.speaker).toBe("SPEAKER_00");
  });

  it("another project's transcript is not found, and its speakers keep their names", async () => {
    const theirs = await conversation(other);
    const res = await rename(theirs, "SPEAKER_00", "Ada");
    expect(res.status).toBe(404);
    expect((await read(other, theirs)).speakers[0]?.name).toBeNull();
  });
});
