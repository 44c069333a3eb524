/** A peer broke the wire protocol; thrown inside frame handling, it breaks only that connection. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
}
