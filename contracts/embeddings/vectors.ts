/** Squared length below which a vector counts as zero. */
const ZERO_EPSILON = 1e-24;
/**
 * A vector whose squared length is this close to 1 is already unit length as far as float32 can
 * tell: normalize() returns it as it is, so normalising twice (an engine, then a client of it)
 * never changes a vector.
 */
const UNIT_EPSILON = 4e-7;

/** The unit vector in the direction of `v`, as float32; the zero vector stays zero. */
export function normalize(v: ArrayLike<number>): Float32Array {
  let sq = 0;
  for (let i = 0; i < v.length; i++) sq += v[i]! * v[i]!;
  const out = new Float32Array(v.length);
  if (!(sq > ZERO_EPSILON)) return out; // zero, or NaN (already refused by the clients)
  if (Math.abs(sq - 1) <= UNIT_EPSILON) {
    out.set(v);
    return out;
  }
  const inv = 1 / Math.sqrt(sq);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

/**
 * Cosine similarity of two unit vectors: their dot product, in [-1, 1]; 0 when either is the zero
 * vector. Vectors of different lengths come from different models and are never comparable.
 */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`cannot compare vectors of ${a.length} and ${b.length} dimensions`);
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** A vector as bytes for a D1 BLOB: float32, little-endian, 4 bytes per component. */
export function vectorToBytes(v: ArrayLike<number>): Uint8Array {
  const bytes = new Uint8Array(v.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < v.length; i++) view.setFloat32(i * 4, v[i]!, true);
  return bytes;
}

/** A vector back from a BLOB (D1 answers an ArrayBuffer, or an array of byte values from older bindings). */
export function bytesToVector(blob: ArrayBuffer | ArrayBufferView | readonly number[]): Float32Array {
  const bytes =
    blob instanceof ArrayBuffer
      ? new Uint8Array(blob)
      : ArrayBuffer.isView(blob)
        ? new Uint8Array(blob.buffer, blob.byteOffset, blob.byteLength)
        : Uint8Array.from(blob);
  if (bytes.length % 4 !== 0) throw new RangeError(`a stored vector has ${bytes.length} bytes, not a multiple of 4`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}
