import { expect } from "vitest";

/** Awaits a promise that must reject with an instance of `type`, and returns that error. */
export async function rejectionOf<E extends Error>(p: Promise<unknown>, type: new (...args: never[]) => E): Promise<E> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(type);
  return err as E;
}
