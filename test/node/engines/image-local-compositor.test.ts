import { describe, expect, it } from "vitest";
import type { Cover } from "../../../gpu-runner/engines/image/interface";
import { useFixture } from "../../support/engine-conformance";
import { LOCAL_COMPOSITOR, type CoverInput } from "../../support/image-backends";
import { pixelsApart } from "../../support/pixels";

/** How the local compositor sets a title in scripts other than Latin (its crop and scrim rules are in the conformance suite and the thumbnail handler's tests). */
const h = useFixture(LOCAL_COMPOSITOR.start);
const compose = (overrides: Partial<CoverInput>): Promise<Cover> =>
  h()
    .engine()
    .generate({ ...h().request(overrides), signal: AbortSignal.timeout(30_000) });
const band = (cover: Cover) => cover.details.band as { lines: string[]; fontSize: number };

describe("the local compositor's title", () => {
  it("breaks a Japanese title between its words, with no spaces added and nothing cut", async () => {
    const title = "東京で新しい会議を開きました。みんなで未来の計画について話し合いました";
    const { lines } = band(await compose({ title }));
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join("")).toBe(title);
    for (const line of lines.slice(1)) expect(line).not.toMatch(/^[、。」]/u);
  });

  it("keeps the spaces of a Latin title and breaks only at them", async () => {
    const title = "Three friends talk about making videos at night in the city";
    const { lines } = band(await compose({ title }));
    expect(lines.join(" ")).toBe(title);
  });

  it("draws Chinese, Japanese and Korean with their own glyphs, not boxes", async () => {
    // Missing glyphs all draw as the same box: three different three-character titles would then look alike.
    const covers = await Promise.all(["日本語", "中文字", "한국어"].map((title) => compose({ title })));
    expect(await pixelsApart(covers[0]!.jpeg, covers[1]!.jpeg)).toBeGreaterThan(1000);
    expect(await pixelsApart(covers[1]!.jpeg, covers[2]!.jpeg)).toBeGreaterThan(1000);
    expect(await pixelsApart(covers[0]!.jpeg, covers[2]!.jpeg)).toBeGreaterThan(1000);
  });
});
