
/** The bytes of a TypedArray, Buffer or DataView: a Uint8Array over the same memory (no copy). */
export function bufferBytes(buffer: ArrayBufferView): Uint8Array {
  return buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}
