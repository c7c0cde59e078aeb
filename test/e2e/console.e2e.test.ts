import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E, type E2E } from "../support/e2e-stack";
import { speechVideo } from "../support/media-fixtures";

/**
 * The console in a real browser (Debian's Chromium driven by playwright-core) against the real local
 * stack: sign in through the form, submit a transcription from the page and watch its stages complete,
 * edit a segment, create and revoke a key, play a clip. It prints the pages' render times (navigation
 * timing) and how soon the job page shows a stage after the runner reported it, and takes the
 * screenshots: into .local/screenshots/ on every run, into docs/screenshots/ (the README's, committed)
 * only with UPDATE_SCREENSHOTS=1, so a test run never leaves the checkout changed.
 */

const SHOTS = path.join(
  import.meta.dirname,
  process.env["UPDATE_SCREENSHOTS"] === "1" ? "../../docs/screenshots" : "../../.local/screenshots",
);
const EMAIL = "ada@example.com";
const PASSWORD = "a long console password";

let e: E2E;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let transcriptionJobId = "";
let transcriptPath = "";
const renders: Array<{ page: string; ttfbMs: number; domContentLoadedMs: number; loadMs: number }> = [];
/** Every Content-Security-Policy violation any page reported (its event, or Chromium's console line). */
const cspViolations: string[] = [];

/**
 * Listens on every page of a context for CSP violations: the `securitypolicyviolation` event (reported
 * through a binding; DevTools-injected scripts are not subject to the page's policy) and the console
 * error Chromium prints for each.
 */
async function watchCsp(ctx: BrowserContext) {
  await ctx.exposeBinding("__reportCsp", (_source, v: string) => void cspViolations.push(v));
  await ctx.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const report = (window as unknown as { __reportCsp: (v: string) => void }).__reportCsp;
      report(`${e.violatedDirective} blocked ${e.blockedURI || "inline"} on ${e.documentURI}`);
    });
  });
  ctx.on("console", (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspViolations.push(`console: ${msg.text()}`);
  });
}
const stageLag: Array<{ stage: string; lagMs: number }> = [];

/** Navigation timing of the page just loaded, kept for the printout. */
async function recordRender(name: string) {
  const t = await page.evaluate(() => {
    const n = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    return {
      ttfbMs: n.responseStart - n.startTime,
      domContentLoadedMs: n.domContentLoadedEventEnd - n.startTime,
      loadMs: n.loadEventEnd - n.startTime,
    };
  });
  renders.push({ page: name, ...t });
}

async function visit(url: string, name: string) {
  await page.goto(`${e.stack.apiBaseUrl}${url}`, { waitUntil: "load" });
  await recordRender(name);
}

/**
 * Watches the job page's timeline: the wall-clock time each stage row first shows its outcome, so it
 * can be compared with the time the runner's report was recorded (the progress entry's `at`).
 */
async function watchStages() {
  await page.evaluate(() => {
    // Rows already on the page when watching starts are marked 0: their arrival time is unknown.
    const seen: Record<string, number> = {};
    (window as unknown as { __seen: Record<string, number> }).__seen = seen;
    const scan = (at: number) => {
      document.querySelectorAll("li[data-stage]").forEach((li, i) => {
        const key = `${i}:${li.getAttribute("data-stage")}:${li.getAttribute("data-outcome")}`;
        seen[key] ??= at;
      });
    };
    scan(0);
    new MutationObserver(() => scan(Date.now())).observe(document.getElementById("live") ?? document.body, {
      subtree: true,
      childList: true,
    });
  });
}

beforeAll(async () => {
  // Short clip bounds and a fast preset keep the clip render to seconds (as in clips-thumbnails.e2e).
  e = await startE2E({ runners: 1, runnerConcurrency: 2, settings: { clips: { minClipSec: 8, maxClipSec: 14, x264Preset: "superfast" } } });
  await e.s3.putObject(e.tenant.bucket, "e2e/console-talk.mp4", await readFile(await speechVideo()), "video/mp4");
  await e.admin("POST", `/workspaces/${e.tenant.workspaceId}/users`, { email: EMAIL, password: PASSWORD, role: "admin", name: "Ada" });
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--autoplay-policy=no-user-gesture-required"],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await watchCsp(context);
  page = await context.newPage();
  await mkdir(SHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  if (renders.length) {
    console.log("console render times (navigation timing, ms):");
    console.table(
      renders.map((r) => ({
        page: r.page,
        ttfb: r.ttfbMs.toFixed(1),
        domContentLoaded: r.domContentLoadedMs.toFixed(1),
        load: r.loadMs.toFixed(1),
      })),
    );
  }
  if (stageLag.length) {
    const lags = stageLag.map((s) => s.lagMs).sort((a, b) => a - b);
    console.log(
      `job page: a stage shows ${lags[Math.floor(lags.length / 2)]} ms (median), ${lags[lags.length - 1]} ms (max) after the runner reported it, over ${lags.length} stage events`,
    );
    console.table(stageLag);
  }
  await browser?.close();
  await e?.close();
});

describe("the console in a real browser", () => {
  it("signs in through the form and lands on the page asked for", async () => {
    await page.goto(`${e.stack.apiBaseUrl}/console/jobs`);
    expect(new URL(page.url()).pathname).toBe("/console/sign-in");
    await recordRender("sign-in");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/console/jobs");
    await recordRender("jobs (after the sign-in POST)");
    expect(await page.textContent("header.top")).toContain(EMAIL);
  });

  it("submits a transcription from the page and shows its stages completing live", async () => {
    await visit("/console/submit", "submit");
    await page.getByLabel("Bucket").fill(e.tenant.bucket);
    await page.getByLabel("Source key").fill("e2e/console-talk.mp4");
    await page.getByLabel("Language").selectOption("en");
    await page.getByRole("button", { name: "Submit transcription" }).click();
    await page.waitForURL(/\/console\/jobs\/job_/);
    await recordRender("job (after the submit POST)");
    transcriptionJobId = /job_\w+/.exec(page.url())?.[0] ?? "";
    await watchStages();
    await page.locator('#live [data-terminal="true"]').waitFor({ timeout: 180_000 });
    expect(await page.locator("#live [role=status] .badge").textContent()).toBe("completed");
    expect(
      await page
        .locator('li[data-stage="transcribe"][data-outcome="completed"], li[data-stage="transcribe_file"][data-outcome="completed"]')
        .count(),
    ).toBeGreaterThan(0);

    // Lag per stage event: when the row first showed it minus when the service recorded the runner's report.
    const seen = await page.evaluate(() => (window as unknown as { __seen: Record<string, number> }).__seen);
    const progress = await page.evaluate(
      (id) =>
        fetch(`/v1/jobs/${id}/progress`).then((r) => r.json()) as Promise<{
          data: { progress: Array<{ stage: string; event: string; at: string }> };
        }>,
      transcriptionJobId,
    );
    for (const [key, at] of Object.entries(seen)) {
      const [, stage, outcome] = key.split(":");
      const entry = progress.data.progress.find((p) => p.stage === stage && p.event === outcome && Date.parse(p.at) <= at);
      if (entry && at > 0 && outcome !== "started") stageLag.push({ stage: `${stage} ${outcome}`, lagMs: at - Date.parse(entry.at) });
    }
    expect(stageLag.length).toBeGreaterThan(0);
  });

  it("opens the transcript, plays the source and highlights the segment being played", async () => {
    await page.getByRole("link", { name: "Open the transcript" }).click();
    await page.waitForURL(/\/console\/transcripts\/txt_/);
    transcriptPath = new URL(page.url()).pathname;
    await recordRender("transcript");
    const video = page.locator("video[data-player]");
    await expect
      .poll(() => video.evaluate((v: HTMLVideoElement) => (v.error ? -v.error.code : v.readyState)), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(1);
    expect(await video.evaluate((v: HTMLVideoElement) => v.duration)).toBeGreaterThan(25);
    const second = page.locator("ol.segments li").nth(1);
    await second.locator("button.seek").click();
    await expect.poll(() => second.getAttribute("class"), { timeout: 10_000 }).toContain("active");
    await video.evaluate((v: HTMLVideoElement) => v.pause());
  });

  it("edits a segment in place and sees the revision bump", async () => {
    const first = page.locator("ol.segments li").first();
    await first.getByRole("button", { name: /Edit the segment/ }).click();
    await first.getByLabel("Segment text").fill("Edited in the console.");
    await first.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => page.locator("#revision").textContent()).toBe("2");
    expect(await first.locator(".seg-text").textContent()).toBe("Edited in the console.");
    const id = transcriptPath.split("/").pop() ?? "";
    const stored = await e.api<{ revision: number; segments: Array<{ text: string }> }>("GET", `/v1/transcriptions/${id}?layers=segments`);
    expect(stored.revision).toBe(2);
    expect(stored.segments[0]?.text).toBe("Edited in the console.");
  });

  it("an edit on a stale revision shows the conflict and the current text, and overwrites nothing", async () => {
    const id = transcriptPath.split("/").pop() ?? "";
    const before = await e.api<{ revision: number; segments: Array<{ id: number; text: string }> }>(
      "GET",
      `/v1/transcriptions/${id}?layers=segments`,
    );
    const target = before.segments[2];
    await e.api("PATCH", `/v1/transcriptions/${id}/segments`, {
      revision: before.revision,
      segments: [{ id: target?.id, text: "Changed elsewhere." }],
    });
    const third = page.locator("ol.segments li").nth(2);
    await third.getByRole("button", { name: /Edit the segment/ }).click();
    await third.getByLabel("Segment text").fill("My stale edit.");
    await third.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => third.locator(".seg-msg").textContent()).toMatch(/someone else changed this transcript/);
    expect(await third.locator(".seg-text").textContent()).toBe("Changed elsewhere.");
    const after = await e.api<{ revision: number; segments: Array<{ text: string }> }>("GET", `/v1/transcriptions/${id}?layers=segments`);
    expect(after.segments[2]?.text).toBe("Changed elsewhere.");
    expect(after.revision).toBe(before.revision + 1);
  });

  it("creates a key whose secret is shown once, and revokes it", async () => {
    await visit("/console/keys", "keys");
    await page.getByLabel("New key name").fill("browser-made");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.locator("#new-secret").textContent())?.trim() ?? "";
    expect(secret).toMatch(/^sk_prj_/);
    const use = () =>
      fetch(`${e.stack.apiBaseUrl}/v1/jobs?limit=1`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);
    expect(await use()).toBe(200);
    await page.getByRole("button", { name: "Revoke key browser-made" }).click();
    await page.waitForURL(/done=revoked/);
    expect(await use()).toBe(401);
  });

  it("lists the jobs with filters, and shows usage", async () => {
    await visit("/console/jobs?statuses=completed&serviceTypes=transcription", "jobs (filtered)");
    expect(await page.textContent("table")).toContain(transcriptionJobId);
    await visit("/console/usage", "usage");
    expect(await page.textContent("main")).toMatch(/transcription jobs/);
  });

  it("renders each main page on a plain GET (timings printed at the end)", async () => {
    for (const [url, name] of [
      ["/console/jobs", "jobs"],
      [`/console/jobs/${transcriptionJobId}`, "job"],
      [transcriptPath, "transcript"],
      ["/console/submit", "submit"],
      ["/console/keys", "keys"],
      ["/console/connections", "connections"],
      ["/console/usage", "usage"],
    ] as const) {
      await visit(url, name);
      expect(await page.locator("main h1").count(), name).toBe(1);
    }
  });

  it("submits a clip generation as raw JSON and plays the clip with its poster", async () => {
    const textSourceId = transcriptPath.split("/").pop() ?? "";
    await visit("/console/submit", "submit");
    await page
      .getByLabel("Job body (JSON)")
      .fill(JSON.stringify({ serviceType: "clip_generation", input: { textSourceId, options: { maxClips: 1 } } }));
    await page.getByRole("button", { name: "Submit", exact: true }).click();
    await page.waitForURL(/\/console\/jobs\/job_/);
    await page.locator('#live [data-terminal="true"]').waitFor({ timeout: 240_000 });
    expect(await page.locator("#live [role=status] .badge").textContent()).toBe("completed");
    await page.getByRole("link", { name: "Play the clips" }).click();
    await page.waitForURL(/\/console\/clips\//);
    await recordRender("clips");
    const clip = page.locator("video[data-clip]").first();
    const poster = await clip.getAttribute("poster");
    expect(poster).toMatch(/^\/console\/media\/clips\/.+\/poster$/);
    const posterType = await page.evaluate((u) => fetch(u).then((r) => r.headers.get("content-type")), poster ?? "");
    expect(posterType).toMatch(/^image\/jpeg/);
    await clip.evaluate((v: HTMLVideoElement) => v.play());
    await expect.poll(() => clip.evaluate((v: HTMLVideoElement) => v.currentTime), { timeout: 20_000 }).toBeGreaterThan(0.5);
  }, 300_000);

  it("takes the screenshots of the main pages, phone and desktop", async () => {
    const pages = [
      { name: "sign-in", url: "/console/sign-in", signedIn: false },
      { name: "jobs", url: "/console/jobs", signedIn: true },
      { name: "job", url: `/console/jobs/${transcriptionJobId}`, signedIn: true },
      { name: "transcript", url: transcriptPath, signedIn: true },
    ];
    for (const [size, viewport] of [
      ["phone", { width: 390, height: 844 }],
      ["desktop", { width: 1280, height: 800 }],
    ] as const) {
      const ctx = await browser.newContext({
        viewport,
        deviceScaleFactor: 1,
        ...(size === "phone" ? { isMobile: true, hasTouch: true } : {}),
      });
      await ctx.addCookies((await context.cookies()).map((c) => ({ ...c })));
      const signedOut = await browser.newContext({ viewport, deviceScaleFactor: 1 });
      await Promise.all([watchCsp(ctx), watchCsp(signedOut)]);
      for (const p of pages) {
        const tab = await (p.signedIn ? ctx : signedOut).newPage();
        await tab.goto(`${e.stack.apiBaseUrl}${p.url}`, { waitUntil: "load" });
        await tab.screenshot({ path: path.join(SHOTS, `${p.name}-${size}.png`) });
        await tab.close();
      }
      await ctx.close();
      await signedOut.close();
    }
  });

  it("the pages run under the console's Content-Security-Policy with no violation reported", async () => {
    const res = await page.goto(`${e.stack.apiBaseUrl}/console/jobs`);
    expect(res?.headers()["content-security-policy"]).toMatch(/script-src 'self'.*style-src 'self'/);
    // The policy is live: an inline script a page might carry is refused and reported (then forgotten here).
    const before = cspViolations.length;
    await page.evaluate(() => {
      const s = document.createElement("script");
      s.textContent = "window.__inlineRan = true";
      document.body.append(s);
    });
    await expect.poll(() => cspViolations.length).toBeGreaterThan(before);
    expect(await page.evaluate(() => (window as unknown as { __inlineRan?: boolean }).__inlineRan)).toBeUndefined();
    const probes = cspViolations.splice(before);
    expect(probes.some((v) => /script-src/.test(v))).toBe(true);
    expect(cspViolations).toEqual([]);
  });
});
