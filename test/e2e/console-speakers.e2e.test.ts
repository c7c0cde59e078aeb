import { mkdir } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Speaker } from "../../contracts/transcript";
import { SPEAKER_PALETTE } from "../../worker/console/speaker-colours";
import { startE2E, transcribedFile, type E2E } from "../support/e2e-stack";
import { twoVoiceAudioOnly } from "../support/media-fixtures";

/**
 * The console's speakers in a real browser (Debian's Chromium driven by playwright-core) against the
 * real local stack: the two-voice conversation transcribed and diarized by the stack's runner
 * (PocketSphinx, local-mfcc), its transcript page showing two speakers in two colours, and a rename
 * made there showing on the segment rows.
 */

/** A look at the page after the rename, for people (not compared): beside console.e2e's, never in the checkout's tracked files. */
const SHOT = path.join(import.meta.dirname, "../../.local/screenshots/transcript-speakers-desktop.png");
const EMAIL = "grace@example.com";
const PASSWORD = "a long console password";

let e: E2E;
let browser: Browser;
let page: Page;
let transcriptionId = "";
const cspReports: string[] = [];

/** `#1f5fbf` → `rgb(31, 95, 191)`, as getComputedStyle writes a colour. */
const cssRgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)).join(", ")})`;

beforeAll(async () => {
  e = await startE2E({ runners: 1 });
  transcriptionId = await transcribedFile(e, await twoVoiceAudioOnly(), "e2e/two-voice.mp4");
  await e.admin("POST", `/workspaces/${e.tenant.workspaceId}/users`, { email: EMAIL, password: PASSWORD, role: "member", name: "Grace" });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on("console", (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspReports.push(msg.text());
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await e?.close();
});

describe("the console's speakers in a real browser", () => {
  it("shows the diarized transcript's two speakers in two palette colours, and a rename shows on the segment rows", async () => {
    const { speakers } = await e.api<{ speakers: Speaker[] }>("GET", `/v1/transcriptions/${transcriptionId}?layers=segments`);
    expect(speakers.map((s) => s.label)).toEqual(["SPEAKER_00", "SPEAKER_01"]);

    await page.goto(`${e.stack.apiBaseUrl}/console/transcripts/${transcriptionId}`);
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`**/console/transcripts/${transcriptionId}`);

    // Two speakers, each name drawn in its own palette colour, its swatch filled with the same colour.
    const panel = page.locator("table.speakers .speaker-name");
    expect(await panel.allTextContents()).toEqual(["SPEAKER_00", "SPEAKER_01"]);
    const drawn = await panel.evaluateAll((els) =>
      els.map((el) => ({ text: getComputedStyle(el).color, swatch: getComputedStyle(el.querySelector(".swatch")!).backgroundColor })),
    );
    expect(drawn).toEqual([
      { text: cssRgb(SPEAKER_PALETTE[0]), swatch: cssRgb(SPEAKER_PALETTE[0]) },
      { text: cssRgb(SPEAKER_PALETTE[1]), swatch: cssRgb(SPEAKER_PALETTE[1]) },
    ]);
    const rows = page.locator("ol.segments .seg-speaker");
    const before = await rows.allTextContents();
    expect(new Set(before)).toEqual(new Set(["SPEAKER_00", "SPEAKER_01"]));

    await page.getByLabel("Name for SPEAKER_01").fill("Ada Lovelace");
    await page.getByRole("button", { name: "Save the name of SPEAKER_01" }).click();
    await page.waitForURL(/done=speakerRenamed/);
    expect(await page.locator("p.notice").textContent()).toContain("Speaker name saved.");
    expect(await panel.allTextContents()).toEqual(["SPEAKER_00", "Ada Lovelace"]);
    // Every row SPEAKER_01 spoke now says Ada Lovelace, still in SPEAKER_01's colour; the others are unchanged.
    expect(await rows.allTextContents()).toEqual(before.map((name) => (name === "SPEAKER_01" ? "Ada Lovelace" : name)));
    const adaColours = await page
      .locator("ol.segments .seg-speaker", { hasText: "Ada Lovelace" })
      .evaluateAll((els) => [...new Set(els.map((el) => getComputedStyle(el).color))]);
    expect(adaColours).toEqual([cssRgb(SPEAKER_PALETTE[1])]);
    await mkdir(path.dirname(SHOT), { recursive: true });
    await page.screenshot({ path: SHOT, fullPage: true });

    const stored = await e.api<{ revision: number; speakers: Speaker[] }>("GET", `/v1/transcriptions/${transcriptionId}?layers=segments`);
    expect(stored.speakers.map((s) => s.name)).toEqual([null, "Ada Lovelace"]);
    expect(stored.revision).toBe(2);
    expect(cspReports).toEqual([]);
  });

  it("after a segment is edited in place, the speaker forms post the revision that edit made", async () => {
    const first = page.locator("ol.segments li").first();
    await first.getByRole("button", { name: /Edit the segment/ }).click();
    await first.getByLabel("Segment text").fill("Good morning, and welcome back.");
    await first.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("#revision").textContent()).toBe("3");
    await page.getByLabel("Name for SPEAKER_00").fill("Grace Hopper");
    await page.getByRole("button", { name: "Save the name of SPEAKER_00" }).click();
    await page.waitForURL(/done=speakerRenamed/);
    const stored = await e.api<{ revision: number; speakers: Speaker[] }>("GET", `/v1/transcriptions/${transcriptionId}?layers=segments`);
    expect({ revision: stored.revision, names: stored.speakers.map((s) => s.name) }).toEqual({
      revision: 4,
      names: ["Grace Hopper", "Ada Lovelace"],
    });
  });
});
