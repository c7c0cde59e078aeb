import type { Plan } from "../../../contracts/service-types";
import { ApiError } from "../../errors";

/** The spec's image-model rules: free 1:1, 3:2, 2:3 at 1024; enterprise up to 3:1, edges ≤ 3840, 655,360–8,294,400 px. */
export function thumbnailSize(plan: Plan, rw: number, rh: number, resolution: number): { width: number; height: number } {
  const snap = (v: number) => Math.round(v / 16) * 16;
  const short = snap(resolution);
  const long = snap((resolution * Math.max(rw, rh)) / Math.min(rw, rh));
  const size = rw >= rh ? { width: long, height: short } : { width: short, height: long };
  const fail = (msg: string) => {
    throw new ApiError("validationError", msg, [{ path: "input.options", issue: "invalidRatioResolution" }]);
  };
  if (plan !== "enterprise") {
    const ok = [
      [1, 1],
      [3, 2],
      [2, 3],
    ].some(([w, h]) => rw * (h as number) === rh * (w as number));
    if (!ok || resolution !== 1024) fail("the free plan image model allows only ratios 1:1, 3:2, 2:3 at resolution 1024");
    return size;
  }
  if (Math.max(rw, rh) / Math.min(rw, rh) > 3) fail("aspect ratio must be at most 3:1");
  if (long > 3840 || short > 3840) fail(`edges must be at most 3840 px (got ${short}x${long} after snapping to multiples of 16)`);
  const px = short * long;
  if (px < 655_360 || px > 8_294_400) fail(`total pixels must be between 655,360 and 8,294,400 (got ${px})`);
  return size;
}
