// A graceful disconnect over tcp, frame by frame against a raw peer: whoever sends DISCONNECT first
// acknowledges what it carried out before it, the other answers with what it owes before it half-
// closes, and what arrives after a DISCONNECT fails at both ends (never acknowledged, never placed).
import { randomBytes } from 'node:crypto';
import { createRootLogger, DtoStatus, MemAccess, type DatEvent, type EventDispatcher, type InterfaceAdapter } from '@dapl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { tcpProvider } from '../src/index.js';
import { decodeHeader, encodeFrame, FrameFlag, FrameType, HEADER_SIZE } from '../src/wire/index.js';
import { rawPeer, type RawClient } from './raw-client.js';

const next = (evd: EventDispatcher): Promise<DatEvent> => evd.wait({ timeoutMs: 5_000 });
const frameAt = async (raw: RawClient) => decodeHeader(await raw.read(HEADER_SIZE), { maxPayload: 1 << 20 });

describe('tcp: graceful disconnect', () => {
  const jobKey = randomBytes(32);
  let ia: InterfaceAdapter | undefined;
  const logged: string[] = [];
  afterEach(async () => {
    await ia?.close();
    ia = undefined;
    logged.length = 0;
  });
  const open = async () => (ia = await tcpProvider.openIa({ jobKey, logger: createRootLogger({ level: 'debug', destination: { write: (line: string) => logged.push(line) } }) }));

  it('the side that disconnects first acknowledges what it carried out (not asked for) before its DISCONNECT, then writes nothing more', async () => {
    const { raw, ep, evd } = await rawPeer(await open(), jobKey, (ep, pz) => ep.postRecv([{ lmr: pz.registerLmr(new Uint8Array(16), MemAccess.LOCAL), offset: 0, length: 16 }], 'one'));
    raw.write(encodeFrame({ type: FrameType.SEND, seq: 1 }, new Uint8Array(16).fill(5)));
    expect(await next(evd)).toMatchObject({ type: 'dto-completion', cookie: 'one', status: DtoStatus.SUCCESS });
    ep.disconnect();
    expect(await frameAt(raw)).toMatchObject({ type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: 1 });
    expect(await frameAt(raw)).toMatchObject({ type: FrameType.DISCONNECT });
    await expect(raw.read(1, 300)).rejects.toThrow(/expected 1 bytes, have 0/);
    raw.destroy();
    expect(await next(evd)).toMatchObject({ type: 'connection-disconnected' });
  });

  it('after its DISCONNECT an endpoint drops what the peer still sends, whole or begun before (the receive is flushed, no ACK), and fails nothing', async () => {
    let lmrBytes: Uint8Array | undefined;
    const { raw, ep, evd } = await rawPeer(await open(), jobKey, (ep, pz) => {
      const lmr = pz.registerLmr(new Uint8Array(2048), MemAccess.LOCAL);
      lmrBytes = lmr.bytes;
      ep.postRecv([{ lmr, offset: 0, length: 1024 }], 'begun');
      ep.postRecv([{ lmr, offset: 1024, length: 1024 }], 'after');
    });
    // SEND 1's header and half its payload arrive before the DISCONNECT goes out, the rest after;
    // SEND 2 (asking for an ACK) comes after it entirely.
    const first = encodeFrame({ type: FrameType.SEND, seq: 1, flags: FrameFlag.ACK_REQUEST }, new Uint8Array(1000).fill(7));
    raw.write(first.subarray(0, HEADER_SIZE + 500));
    await new Promise((r) => setTimeout(r, 50));
    ep.disconnect();
    expect(await frameAt(raw)).toMatchObject({ type: FrameType.DISCONNECT });
    raw.write(first.subarray(HEADER_SIZE + 500));
    raw.write(encodeFrame({ type: FrameType.SEND, seq: 2, flags: FrameFlag.ACK_REQUEST }, new Uint8Array(10).fill(8)));
    await expect(raw.read(1, 200)).rejects.toThrow(/expected 1 bytes, have 0/);
    raw.destroy();
    const events = [await next(evd), await next(evd), await next(evd)];
    expect(events.filter((e) => e.type === 'dto-completion')).toEqual([
      expect.objectContaining({ cookie: 'begun', status: DtoStatus.FLUSHED }),
      expect.objectContaining({ cookie: 'after', status: DtoStatus.FLUSHED }),
    ]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'connection-disconnected', reason: 'the connection closed' }));
    expect(lmrBytes!.subarray(1024).every((b) => b === 0)).toBe(true);
    // Before, the ACK owed was written after the half-close and failed the socket ('write after end').
    expect(logged.filter((line) => line.includes('connection failed'))).toEqual([]);
  });

  it('the side that receives DISCONNECT acknowledges what it carried out before it half-closes', async () => {
    const { raw, evd } = await rawPeer(await open(), jobKey, (ep, pz) => ep.postRecv([{ lmr: pz.registerLmr(new Uint8Array(16), MemAccess.LOCAL), offset: 0, length: 16 }], 'one'));
    // A SEND that does not ask for an ACK, and DISCONNECT behind it in the same write.
    raw.write(Buffer.concat([encodeFrame({ type: FrameType.SEND, seq: 1 }, new Uint8Array(16).fill(3)), encodeFrame({ type: FrameType.DISCONNECT })]));
    expect(await next(evd)).toMatchObject({ type: 'dto-completion', cookie: 'one', status: DtoStatus.SUCCESS });
    expect(await frameAt(raw)).toMatchObject({ type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: 1 });
    await raw.closed;
    expect(await next(evd)).toMatchObject({ type: 'connection-disconnected' });
  });

  it('the side that receives DISCONNECT writes every response it owes, past its socket\'s high-water mark, and then the ACK', async () => {
    const opened = await tcpProvider.openIa({ jobKey, parameters: { writeBufferBytes: 16 * 1024 } });
    ia = opened;
    let window: { rmrContext: bigint; targetOffset: number } | undefined;
    const { raw, evd } = await rawPeer(opened, jobKey, (ep, pz) => {
      ep.postRecv([{ lmr: pz.registerLmr(new Uint8Array(16), MemAccess.LOCAL), offset: 0, length: 16 }], 'one');
      const exposed = pz.registerLmr(new Uint8Array(96 * 1024).map((_, i) => i & 0xff), MemAccess.ALL);
      window = pz.createRmr().bind(exposed, 0, exposed.length, MemAccess.REMOTE_READ);
    });
    const read = (seq: number, offset: number) => encodeFrame({ type: FrameType.READ_REQ, seq, aux: 48 * 1024, rmrContext: window!.rmrContext, targetOffset: BigInt(window!.targetOffset + offset) });
    // Two reads of 48 KiB (six times the socket's mark together), a SEND that asks for no ACK, DISCONNECT.
    raw.write(Buffer.concat([read(1, 0), read(2, 48 * 1024), encodeFrame({ type: FrameType.SEND, seq: 3 }, new Uint8Array(16)), encodeFrame({ type: FrameType.DISCONNECT })]));
    for (const seq of [1, 2]) {
      expect(await frameAt(raw)).toMatchObject({ type: FrameType.READ_RESP, seq, payloadLength: 48 * 1024 });
      const data = await raw.read(48 * 1024);
      expect(data[0]).toBe(0);
      expect(data[1]).toBe(1);
    }
    expect(await frameAt(raw)).toMatchObject({ type: FrameType.ACK, flags: FrameFlag.ACK_VALID, ack: 3 });
    await raw.closed;
    expect(await next(evd)).toMatchObject({ type: 'dto-completion', cookie: 'one', status: DtoStatus.SUCCESS });
  });
});
