import { EpState, type Endpoint } from '@dapl/core';
import { describe, expect, it } from 'vitest';
import { HEADER_BYTES } from '../src/adi/header.js';
import { FASTBOX_BYTES, FASTBOX_PAYLOAD, InboundBoxes, OutboundBoxes } from '../src/device/rdma/fastbox.js';
import { PeerLink } from '../src/device/rdma/peer-link.js';

/** The two ends of one direction of a connection's peer memory: a region of `boxes` fastboxes. */
function pair(boxes: number) {
  const region = new Uint8Array(new SharedArrayBuffer(boxes * FASTBOX_BYTES));
  const ep = { state: EpState.CONNECTED } as { state: EpState };
  const link = new PeerLink(1, 64);
  const out = new OutboundBoxes(ep as unknown as Endpoint, region);
  const inbound = new InboundBoxes(ep as unknown as Endpoint, link, region);
  return { ep, link, out, inbound };
}

/** Write message `n` (its number in the data's first byte) into the next box; false when that box is still full. */
function send(out: OutboundBoxes, n: number, datBefore = 0): boolean {
  const box = out.take();
  if (box === undefined) return false;
  box.bytes[HEADER_BYTES] = n;
  out.publish(box, datBefore);
  return true;
}

/** The next message's number, the box released (undefined: none ready). */
function take(inbound: InboundBoxes, release = true): number | undefined {
  const box = inbound.next();
  if (box === undefined) return undefined;
  inbound.advance();
  const n = box.payload(1)[0];
  if (release) box.release();
  return n;
}

describe('fastboxes in peer memory', () => {
  it('carry messages in order through the boxes in turn, around the region many times', () => {
    const { out, inbound } = pair(4);
    expect(take(inbound)).toBeUndefined();
    const seen: number[] = [];
    for (let n = 0; n < 40; n++) {
      expect(send(out, n)).toBe(true);
      if (n % 3 === 2) for (let m = take(inbound); m !== undefined; m = take(inbound)) seen.push(m);
    }
    for (let m = take(inbound); m !== undefined; m = take(inbound)) seen.push(m);
    expect(seen).toEqual(Array.from({ length: 40 }, (_, n) => n));
  });

  it('a box the receiver has not released is not taken again: the sender finds it full, then free once released', () => {
    const { out, inbound } = pair(2);
    expect(send(out, 1)).toBe(true);
    expect(send(out, 2)).toBe(true);
    expect(send(out, 3)).toBe(false);
    expect(take(inbound, false)).toBe(1);
    // Taken but held (an unexpected message kept in place): still full for the sender.
    expect(send(out, 3)).toBe(false);
    expect(take(inbound)).toBe(2);
    expect(send(out, 3)).toBe(false);
  });

  it('the receiver does not read a held box of the last lap as a new message', () => {
    const { out, inbound } = pair(2);
    send(out, 1);
    send(out, 2);
    const held = inbound.next()!;
    inbound.advance();
    expect(take(inbound)).toBe(2);
    expect(send(out, 3)).toBe(false);
    // The next box in turn is the held one, with last lap's sequence: nothing new.
    expect(take(inbound)).toBeUndefined();
    held.release();
    expect(send(out, 3)).toBe(true);
    expect(take(inbound)).toBe(3);
  });

  it('a box waits for the messages its sender put on DAT before it', () => {
    const { out, inbound, link } = pair(4);
    send(out, 1, 0);
    send(out, 2, 2);
    expect(take(inbound)).toBe(1);
    expect(take(inbound)).toBeUndefined();
    link.datArrived = 1;
    expect(take(inbound)).toBeUndefined();
    link.datArrived = 2;
    expect(take(inbound)).toBe(2);
  });

  it('no box is taken for an endpoint that is no longer connected; the payload is what the layout leaves', () => {
    const { out, ep } = pair(1);
    ep.state = EpState.DISCONNECTED;
    expect(out.take()).toBeUndefined();
    expect(FASTBOX_PAYLOAD).toBe(456);
  });
});
