import type { Clock, Endpoint } from '@dapl/core';
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from '../src/adi/requests.js';
import type { Arrival } from '../src/device/rdma/arrival.js';
import { PeerLink } from '../src/device/rdma/peer-link.js';
import type { Slot } from '../src/device/rdma/slot.js';
import { UnexpectedData } from '../src/device/rdma/unexpected-data.js';

const ep = {} as Endpoint;

/** A clock that adds up the copies charged to it. */
function copyCounter(): Clock & { copied: number } {
  return {
    copied: 0,
    now: () => 0,
    tick: 1e-9,
    charge() {},
    chargeCopy(bytes: number) {
      this.copied += bytes;
    },
    delay: () => Promise.resolve(),
  };
}

/** An eager message of `size` bytes whose data sits in its own receive buffer (a slot). */
function eager(link: PeerLink, size: number, fill: number): { message: IncomingMessage; arrival: Arrival; slot: Slot } {
  const slot = { name: `slot ${fill}` } as unknown as Slot;
  const arrival: Arrival = { slot, ep, link, senderRequest: 0, remote: undefined, copied: false, epoch: 0, ordinal: 0 };
  const payload = new Uint8Array(size).fill(fill);
  const message: IncomingMessage = { peer: link.peer, context: 0, source: link.peer, tag: 0, size, payload, synchronous: false, ready: false, deviceState: arrival };
  return { message, arrival, slot };
}

function setUp(limit: number) {
  const clock = copyCounter();
  const reposted: Slot[] = [];
  const store = new UnexpectedData(limit, clock, (slot) => reposted.push(slot));
  return { clock, reposted, store };
}

describe('UnexpectedData', () => {
  it('copies eager data out up to its bound and re-posts those buffers; past it the data stays in its buffer', () => {
    const { clock, reposted, store } = setUp(100);
    const link = new PeerLink(1, 8);
    const a = eager(link, 60, 1);
    const b = eager(link, 40, 2);
    const c = eager(link, 1, 3);
    const buffer = b.message.payload;
    for (const m of [a, b, c]) store.keep(m.message, m.arrival);
    expect(reposted).toEqual([a.slot, b.slot]);
    expect([store.bytes, store.peakBytes, clock.copied]).toEqual([100, 100, 100]);
    // The copy is the message's own memory now, with the same contents.
    expect(b.message.payload).not.toBe(buffer);
    expect([...b.message.payload!]).toEqual(new Array(40).fill(2));
    expect([b.arrival.slot, b.arrival.copied]).toEqual([undefined, true]);
    // The third waits in its buffer, whose credit the peer does not get back.
    expect(link.held).toEqual([c.message]);
    expect([store.held, store.peakHeld, c.arrival.slot]).toEqual([1, 1, c.slot]);
  });

  it('on release forgets a copy, or re-posts a held buffer and stops counting it', () => {
    const { reposted, store } = setUp(10);
    const link = new PeerLink(1, 8);
    const copied = eager(link, 10, 1);
    const held = eager(link, 5, 2);
    store.keep(copied.message, copied.arrival);
    store.keep(held.message, held.arrival);
    store.release(copied.message, copied.arrival);
    expect([store.bytes, store.peakBytes]).toEqual([0, 10]);
    expect(reposted).toEqual([copied.slot]);
    store.release(held.message, held.arrival);
    expect(reposted).toEqual([copied.slot, held.slot]);
    expect([store.held, store.peakHeld, link.held.length, held.arrival.slot]).toEqual([0, 1, 0, undefined]);
  });

  it('unholds one link beyond the bound (a receive waits on that peer), leaving other links held', () => {
    const { reposted, store } = setUp(0);
    const one = new PeerLink(1, 8);
    const two = new PeerLink(2, 8);
    const first = eager(one, 8, 1);
    const second = eager(one, 8, 2);
    const other = eager(two, 8, 3);
    for (const m of [first, second, other]) store.keep(m.message, m.arrival);
    expect(store.held).toBe(3);
    store.unhold(one);
    expect(reposted).toEqual([first.slot, second.slot]);
    expect([store.held, store.bytes, one.held.length, two.held.length]).toEqual([1, 16, 0, 1]);
    expect([...second.message.payload!]).toEqual(new Array(8).fill(2));
    store.unhold(undefined);
    expect(store.held).toBe(1);
  });

  it('keeps nothing of a message without eager data in a buffer (a rendezvous request)', () => {
    const { reposted, store } = setUp(100);
    const link = new PeerLink(1, 8);
    const rts = eager(link, 1000, 0);
    rts.message.payload = undefined;
    store.keep(rts.message, rts.arrival);
    expect([store.bytes, store.held, reposted.length]).toEqual([0, 0, 0]);
  });
});
