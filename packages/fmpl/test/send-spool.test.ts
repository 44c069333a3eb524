import { describe, expect, it } from 'vitest';
import type { Lmr } from '@dapl/core';
import { SendSpool, type Spooled } from '../src/send-spool.js';

// 3 peers, 4 user indexes, 1 internal one, the wildcard slot last: 6 slots per peer.
const USER = 4;
const SLOTS = 6;
const ANY = 5;
const lmr = {} as Lmr;
const spooled = (dst: number, slot: number): Spooled => ({ dst, slot, bytes: new Uint8Array(1), lmr, block: { offset: 0, length: 1, skipped: 0, freed: false, next: undefined } });

/** A spool with a header table: `ready` answers as the engine's #headerReady does, `send` takes the header. */
function fixture() {
  const spool = new SendSpool(3, SLOTS, USER, ANY);
  const headers = new Set<string>();
  const sent: string[] = [];
  const exact = (dst: number, slot: number): boolean => headers.has(`${dst}.${slot}`);
  const ready = (dst: number, slot: number): boolean => exact(dst, slot) || (slot < USER && headers.has(`${dst}.${ANY}`));
  const send = (s: Spooled): void => {
    const exact = `${s.dst}.${s.slot}`;
    headers.delete(headers.has(exact) ? exact : `${s.dst}.${ANY}`);
    sent.push(exact);
  };
  const arrive = (dst: number, slot: number): boolean => (headers.add(`${dst}.${slot}`), spool.headerArrived(dst, slot));
  const release = (): void => spool.release(exact, ready, send);
  return { spool, headers, sent, exact, ready, send, arrive, release };
}

describe('SendSpool', () => {
  it("releases a send when its own header comes, and only that one, whatever else is spooled", () => {
    const f = fixture();
    for (let slot = 0; slot < USER; slot++) f.spool.add(spooled(1, slot));
    f.spool.add(spooled(2, 0));
    expect(f.spool.size).toBe(5);
    expect(f.arrive(1, 2)).toBe(true);
    f.release();
    expect(f.sent).toEqual(['1.2']);
    expect(f.spool.size).toBe(4);
  });

  it('ignores a header no spooled send waits for (a zero-copy send will take it)', () => {
    const f = fixture();
    f.spool.add(spooled(1, 0));
    expect(f.arrive(0, 0)).toBe(false);
    expect(f.arrive(1, 3)).toBe(false);
    f.release();
    expect(f.sent).toEqual([]);
  });

  it('a wildcard header releases the oldest send to that peer on a user index, not one on an internal index', () => {
    const f = fixture();
    f.spool.add(spooled(1, USER)); // internal (a collective's), oldest
    f.spool.add(spooled(1, 3));
    f.spool.add(spooled(1, 0));
    f.spool.add(spooled(2, 1));
    expect(f.arrive(1, ANY)).toBe(true);
    f.release();
    expect(f.sent).toEqual(['1.3']);
    // The next wildcard header takes the next oldest; the internal one waits for its own header.
    f.arrive(1, ANY);
    f.release();
    f.arrive(1, ANY);
    f.release();
    expect(f.sent).toEqual(['1.3', '1.0']);
    expect(f.spool.oldest()).toMatchObject({ dst: 1, slot: USER });
    f.arrive(1, USER);
    f.release();
    expect(f.sent).toEqual(['1.3', '1.0', `1.${USER}`]);
    expect(f.spool.oldest()).toMatchObject({ dst: 2, slot: 1 });
  });

  it('an exact and a wildcard header in one release send two messages, as two headers must', () => {
    const f = fixture();
    f.spool.add(spooled(1, 0));
    f.spool.add(spooled(1, 1));
    f.arrive(1, 0);
    f.arrive(1, ANY);
    f.release();
    expect(f.sent).toEqual(['1.0', '1.1']);
    expect(f.spool.size).toBe(0);
  });

  it('a wildcard header that came before an exact one still releases a send when the oldest uses its own header', () => {
    const f = fixture();
    f.spool.add(spooled(1, 1)); // x, oldest
    f.spool.add(spooled(1, 0)); // y
    f.spool.add(spooled(1, 1)); // z, queued behind x
    f.arrive(1, ANY);
    f.arrive(1, 1);
    f.release();
    // x takes the header for index 1, y the wildcard one; z, younger, waits for its own.
    expect(f.sent).toEqual(['1.1', '1.0']);
    expect(f.headers.size).toBe(0);
    expect(f.spool.oldest()).toMatchObject({ dst: 1, slot: 1 });
  });

  it('a stale note for a cell (its send gone, a younger one at the head) does not hand that one the wildcard header', () => {
    const f = fixture();
    f.spool.add(spooled(1, 1)); // s
    f.spool.add(spooled(1, 0)); // t
    f.spool.add(spooled(1, 1)); // s2, behind s
    f.arrive(1, 1);
    f.release(); // s goes
    f.spool.headerArrived(1, 1); // noted again (finalize does), though s has gone
    f.arrive(1, ANY);
    f.release();
    expect(f.sent).toEqual(['1.1', '1.0']);
    expect(f.spool.oldest()).toMatchObject({ dst: 1, slot: 1 });
  });

  it('counts the sends spooled to a peer on user indexes, which a wildcard header is for', () => {
    const f = fixture();
    f.spool.add(spooled(2, USER)); // internal
    expect(f.spool.holdsUserSendTo(2)).toBe(false);
    f.spool.add(spooled(2, 3));
    expect(f.spool.holdsUserSendTo(2)).toBe(true);
    f.arrive(2, ANY);
    f.release();
    expect(f.sent).toEqual(['2.3']);
    expect(f.spool.holdsUserSendTo(2)).toBe(false);
    expect(f.spool.size).toBe(1);
  });

  it('a wildcard header that a zero-copy send took first releases nothing', () => {
    const f = fixture();
    f.spool.add(spooled(1, 0));
    f.arrive(1, ANY);
    f.headers.delete(`1.${ANY}`);
    f.release();
    expect(f.sent).toEqual([]);
    expect(f.spool.size).toBe(1);
  });

  it('sends spooled on one cell queue there and go one per header, in order', () => {
    const f = fixture();
    const first = spooled(1, 2);
    const second = spooled(1, 2);
    f.spool.add(first);
    expect(f.spool.holds(1, 2)).toBe(true);
    f.spool.add(second);
    expect(f.spool.size).toBe(2);
    const went: Spooled[] = [];
    f.arrive(1, 2);
    f.spool.release(f.exact, f.ready, (s) => (f.send(s), went.push(s)));
    expect(went).toEqual([first]);
    expect(f.spool.oldest()).toBe(second);
    f.arrive(1, 2);
    f.spool.release(f.exact, f.ready, (s) => (f.send(s), went.push(s)));
    expect(went).toEqual([first, second]);
    expect(f.spool.holds(1, 2)).toBe(false);
  });

  it('a wildcard header takes the oldest head among the peer\'s cells, not a younger send queued behind it', () => {
    const f = fixture();
    f.spool.add(spooled(1, 0)); // order 1
    f.spool.add(spooled(1, 1)); // order 2
    f.spool.add(spooled(1, 0)); // order 3, behind order 1 in cell 0
    f.arrive(1, 0);
    f.release(); // order 1 goes; cell 0's head is now order 3
    f.arrive(1, ANY);
    f.release();
    expect(f.sent).toEqual(['1.0', '1.1']);
    expect(f.spool.size).toBe(1);
  });

  it('a cell can be spooled again once its send has gone', () => {
    const f = fixture();
    f.spool.add(spooled(0, 2));
    f.arrive(0, 2);
    f.release();
    f.spool.add(spooled(0, 2));
    expect(f.spool.size).toBe(1);
    f.arrive(0, 2);
    f.release();
    expect(f.sent).toEqual(['0.2', '0.2']);
    expect(f.spool.oldest()).toBeUndefined();
  });
});
