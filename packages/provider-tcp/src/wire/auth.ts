/**
 * Connection authentication with the job's secret: each side proves knowledge of the key over
 * both nonces, with a different label per message (HELLO, ACCEPT, REJECT) so one proof cannot be
 * replayed as another.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { DatError, DatStatus } from '@dapl/core';
import { constantTimeEqual } from '@dapl/core/provider-kit';

export const NONCE_SIZE = 32;
export const PROOF_SIZE = 32;

const HELLO_LABEL = new TextEncoder().encode('dapl-tcp-c');
const ACCEPT_LABEL = new TextEncoder().encode('dapl-tcp-s');
const REJECT_LABEL = new TextEncoder().encode('dapl-tcp-r');

/** A fresh random nonce for CHALLENGE (server) or HELLO (client). */
export function newNonce(): Uint8Array {
  return new Uint8Array(randomBytes(NONCE_SIZE));
}

function checkKeyAndNonces(jobKey: Uint8Array, serverNonce: Uint8Array, clientNonce: Uint8Array): void {
  if (!(jobKey instanceof Uint8Array) || jobKey.byteLength === 0) {
    throw new DatError(DatStatus.INVALID_PARAMETER, 'jobKey must be a non-empty Uint8Array', { argument: 'jobKey' });
  }
  for (const [argument, nonce] of [
    ['serverNonce', serverNonce],
    ['clientNonce', clientNonce],
  ] as const) {
    if (!(nonce instanceof Uint8Array) || nonce.byteLength !== NONCE_SIZE) {
      throw new DatError(
        DatStatus.INVALID_PARAMETER,
        `${argument} must be a Uint8Array of ${NONCE_SIZE} bytes, got ${nonce instanceof Uint8Array ? nonce.byteLength : typeof nonce}`,
        { argument },
      );
    }
  }
}

function hmac(jobKey: Uint8Array, label: Uint8Array, first: Uint8Array, second: Uint8Array): Uint8Array {
  return new Uint8Array(createHmac('sha256', jobKey).update(label).update(first).update(second).digest());
}

/** The client's proof in HELLO: HMAC-SHA256(jobKey, "dapl-tcp-c" ‖ serverNonce ‖ clientNonce). */
export function helloProof(jobKey: Uint8Array, serverNonce: Uint8Array, clientNonce: Uint8Array): Uint8Array {
  checkKeyAndNonces(jobKey, serverNonce, clientNonce);
  return hmac(jobKey, HELLO_LABEL, serverNonce, clientNonce);
}

/**
 * The server's proof in ACCEPT: HMAC-SHA256(jobKey, "dapl-tcp-s" ‖ clientNonce ‖ serverNonce).
 * Takes the nonces in the same order as `helloProof`, to leave one order to remember.
 */
export function acceptProof(jobKey: Uint8Array, serverNonce: Uint8Array, clientNonce: Uint8Array): Uint8Array {
  checkKeyAndNonces(jobKey, serverNonce, clientNonce);
  return hmac(jobKey, ACCEPT_LABEL, clientNonce, serverNonce);
}

/**
 * The server's proof in REJECT: HMAC-SHA256(jobKey, "dapl-tcp-r" ‖ clientNonce ‖ serverNonce), so
 * only a server of the job can turn a client away, and a REJECT cannot pass for an ACCEPT.
 */
export function rejectProof(jobKey: Uint8Array, serverNonce: Uint8Array, clientNonce: Uint8Array): Uint8Array {
  checkKeyAndNonces(jobKey, serverNonce, clientNonce);
  return hmac(jobKey, REJECT_LABEL, clientNonce, serverNonce);
}

/** Checks a peer's HELLO proof in constant time. */
export function verifyHelloProof(
  jobKey: Uint8Array,
  serverNonce: Uint8Array,
  clientNonce: Uint8Array,
  proof: Uint8Array,
): boolean {
  return constantTimeEqual(helloProof(jobKey, serverNonce, clientNonce), proof);
}

/** Checks a peer's ACCEPT proof in constant time. */
export function verifyAcceptProof(
  jobKey: Uint8Array,
  serverNonce: Uint8Array,
  clientNonce: Uint8Array,
  proof: Uint8Array,
): boolean {
  return constantTimeEqual(acceptProof(jobKey, serverNonce, clientNonce), proof);
}

/** Checks a peer's REJECT proof in constant time. */
export function verifyRejectProof(
  jobKey: Uint8Array,
  serverNonce: Uint8Array,
  clientNonce: Uint8Array,
  proof: Uint8Array,
): boolean {
  return constantTimeEqual(rejectProof(jobKey, serverNonce, clientNonce), proof);
}
