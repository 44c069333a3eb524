/**
 * Authentication of `PMI_PORT` clients by the job key, so that a process that is not one of the job's
 * ranks cannot join the job or read its KVS when `dapl run --hosts` serves PMI over TCP. Before
 * anything else the server sends `cmd=auth_challenge nonce=<32 hex>`; the client answers
 * `cmd=auth_response pmiid=<rank> digest=<hex HMAC-SHA256(job key, "dapl-pmi-auth|<nonce>|<rank>")>`,
 * binding the answer to this connection's nonce and to the rank it then identifies as with `initack`.
 * Hydra's PMI_PORT mode has no such step: a client does it only when `DAPL_PMI_AUTH=hmac-sha256`.
 */
import { Buffer } from 'node:buffer';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import { intField, pmiMessageText, textField } from './replies.js';
import { formatPmiLine, isPmiWireError, parsePmiLine, type PmiMessage } from './wire.js';

/** Set by `dapl run --hosts` beside `PMI_PORT`: the server will challenge the client. */
export const PMI_AUTH_ENV = 'DAPL_PMI_AUTH';
export const PMI_AUTH_SCHEME = 'hmac-sha256';

const MAX_CHALLENGE_LINE_BYTES = 256;

export function newPmiNonce(): string {
  return randomBytes(16).toString('hex');
}

export function pmiAuthDigest(jobKey: Uint8Array, nonce: string, pmiId: number): string {
  return createHmac('sha256', jobKey).update(`dapl-pmi-auth|${nonce}|${pmiId}`).digest('hex');
}

/** True when `message` is a correct `auth_response` to `nonce`; the rank it authenticated as otherwise `undefined`. */
export function verifyPmiAuthResponse(message: PmiMessage, jobKey: Uint8Array, nonce: string): number | undefined {
  if (message.cmd !== 'auth_response') return undefined;
  const pmiId = intField(message, 'pmiid');
  const digest = textField(message, 'digest');
  if (pmiId === undefined || pmiId < 0 || digest === undefined || !/^[0-9a-f]{64}$/.test(digest)) return undefined;
  const expected = Buffer.from(pmiAuthDigest(jobKey, nonce, pmiId), 'hex');
  return timingSafeEqual(expected, Buffer.from(digest, 'hex')) ? pmiId : undefined;
}

/**
 * The client's side: reads the challenge line from `socket` and answers it. Leaves the socket paused
 * with any later bytes put back, for the PMI channel that reads it next.
 */
export function answerPmiChallenge(socket: Socket, jobKey: Uint8Array, pmiId: number, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let line = Buffer.alloc(0);
    const finish = (error?: DatError): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.pause();
      if (error === undefined) resolve();
      else {
        socket.destroy();
        reject(error);
      }
    };
    const onData = (chunk: Buffer): void => {
      line = Buffer.concat([line, chunk]);
      const nl = line.indexOf(0x0a);
      if (nl < 0) {
        if (line.length > MAX_CHALLENGE_LINE_BYTES) finish(new DatError(DatStatus.INTERNAL_ERROR, `the PMI server at PMI_PORT sent ${line.length} bytes without a challenge line`));
        return;
      }
      const rest = line.subarray(nl + 1);
      const message = parsePmiLine(line.subarray(0, nl).toString('utf8'));
      const nonce = isPmiWireError(message) || message.cmd !== 'auth_challenge' ? undefined : textField(message, 'nonce');
      if (nonce === undefined || !/^[0-9a-f]{16,128}$/.test(nonce)) {
        const shown = isPmiWireError(message) ? message.message : pmiMessageText(message);
        finish(new DatError(DatStatus.INTERNAL_ERROR, `${PMI_AUTH_ENV}=${PMI_AUTH_SCHEME} but the PMI server did not send cmd=auth_challenge nonce=<hex>: ${shown}`));
        return;
      }
      socket.pause();
      if (rest.length > 0) socket.unshift(rest);
      socket.write(formatPmiLine('auth_response', { pmiid: pmiId, digest: pmiAuthDigest(jobKey, nonce, pmiId) }));
      finish();
    };
    const onClose = (): void => finish(new DatError(DatStatus.CONNECTION_BROKEN, 'the PMI server closed the connection before its authentication challenge'));
    const timer = setTimeout(() => finish(new DatError(DatStatus.TIMEOUT_EXPIRED, `no authentication challenge from the PMI server within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', onData);
    socket.once('close', onClose);
  });
}
