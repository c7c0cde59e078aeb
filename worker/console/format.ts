/** Formatting the console's pages share. */

/** 83.4 → "1:23.4" */
export function clock(sec: number): string {
  const m = Math.floor(sec / 60);
  const s = sec - m * 60;
  return `${m}:${s < 10 ? "0" : ""}${s.toFixed(1)}`;
}

/** A speaking time to the second: 83.4 → "1:23", 3725 → "62:05". */
export function minutesSeconds(sec: number): string {
  const whole = Math.round(sec);
  const s = whole % 60;
  return `${Math.floor(whole / 60)}:${s < 10 ? "0" : ""}${s}`;
}
