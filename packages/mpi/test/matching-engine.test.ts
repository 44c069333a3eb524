import { seededRandom } from '@dapl/core/testing';
import { describe, expect, it } from 'vitest';
import { ANY_SOURCE, ANY_TAG } from '../src/api/constants.js';
import { MatchingEngine, PARKED_BINS, type PostedHandle } from '../src/adi/matching-engine.js';

const ANY = -1;

describe('MatchingEngine', () => {
  it('a message goes to the oldest posted receive that accepts it, across every wildcard kind', () => {
    const m = new MatchingEngine<string, string>();
    m.post(0, ANY_SOURCE, ANY_TAG, 'any-any');
    m.post(0, 1, 5, 'one-five');
    m.post(0, ANY_SOURCE, 5, 'any-five');
    m.post(0, 1, ANY_TAG, 'one-any');
    expect(m.arrive(0, 1, 5, 'a')).toBe('any-any');
    expect(m.arrive(0, 1, 5, 'b')).toBe('one-five');
    expect(m.arrive(0, 1, 5, 'c')).toBe('any-five');
    expect(m.arrive(0, 1, 5, 'd')).toBe('one-any');
    expect(m.arrive(0, 1, 5, 'e')).toBeUndefined();
    expect(m.postedCount).toBe(0);
    expect(m.unexpectedCount).toBe(1);
  });

  it('a receive takes the oldest unexpected message it accepts, whatever its pattern', () => {
    const m = new MatchingEngine<string, string>();
    m.arrive(0, 2, 7, 'm1');
    m.arrive(0, 1, 5, 'm2');
    m.arrive(0, 1, 7, 'm3');
    m.arrive(0, 2, 5, 'm4');
    expect(m.post(0, 1, ANY_TAG, 'r').message).toBe('m2');
    expect(m.post(0, ANY_SOURCE, 5, 'r').message).toBe('m4');
    expect(m.post(0, ANY_SOURCE, ANY_TAG, 'r').message).toBe('m1');
    expect(m.post(0, 1, 7, 'r').message).toBe('m3');
    expect(m.post(0, 1, 7, 'r').handle).toBeDefined();
  });

  it('takePosted takes the receive arrive would, and changes nothing when none accepts the message', () => {
    const m = new MatchingEngine<string, string>();
    m.post(0, 1, 5, 'one-five');
    m.post(0, ANY_SOURCE, 5, 'any-five');
    expect(m.takePosted(0, 1, 6)).toBeUndefined();
    expect(m.takePosted(1, 1, 5)).toBeUndefined();
    expect([m.postedCount, m.unexpectedCount]).toEqual([2, 0]);
    expect(m.takePosted(0, 1, 5)).toBe('one-five');
    expect(m.takePosted(0, 2, 5)).toBe('any-five');
    expect(m.takePosted(0, 1, 5)).toBeUndefined();
    m.queueUnexpected(0, 1, 5, 'late');
    expect(m.post(0, 1, 5, 'r').message).toBe('late');
    // Nothing queued: what stays filed is the context and its emptied bins, kept for reuse.
    expect(m.binCount).toBeLessThanOrEqual(1 + PARKED_BINS);
  });

  it('takeIfFirst takes a receive only when a message of its own source and tag would match it', () => {
    const m = new MatchingEngine<string, string>();
    const handle = (r: ReturnType<typeof m.post>): PostedHandle => r.handle!;
    const first = handle(m.post(0, 1, 5, 'first'));
    const second = handle(m.post(0, 1, 5, 'second'));
    // Not the head of its bin: the older receive would take the message.
    expect(m.takeIfFirst(second)).toBe(false);
    expect(m.takeIfFirst(first)).toBe(true);
    expect(m.postedCount).toBe(1);
    // Taken off its queue: the next message goes to the other receive, and the taken one is gone for good.
    expect(m.takeIfFirst(first)).toBe(false);
    expect(m.cancel(first)).toBe(false);
    // An older wildcard receive would take a (1, 5) message first.
    const wild = new MatchingEngine<string, string>();
    wild.post(0, ANY_SOURCE, 5, 'any-five');
    const later = handle(wild.post(0, 1, 5, 'one-five'));
    expect(wild.takeIfFirst(later)).toBe(false);
    expect(wild.arrive(0, 1, 5, 'm')).toBe('any-five');
    expect(wild.takeIfFirst(later)).toBe(true);
    expect(wild.postedCount).toBe(0);
    // A wildcard receive is never taken this way (the message's own source and tag are unknown to it).
    const anyTag = handle(wild.post(0, 1, ANY_TAG, 'one-any'));
    expect(wild.takeIfFirst(anyTag)).toBe(false);
    expect(m.arrive(0, 1, 5, 'next')).toBe('second');
  });

  it('olderRivals counts the older receives of the same (source, tag) and refuses when a wildcard could take the message first', () => {
    const m = new MatchingEngine<string, string>();
    const handle = (r: ReturnType<typeof m.post>): PostedHandle => r.handle!;
    const first = handle(m.post(0, 1, 5, 'a'));
    expect(m.olderRivals(first)).toBe(0);
    const second = handle(m.post(0, 1, 5, 'b'));
    expect(m.olderRivals(second)).toBe(1);
    expect(m.olderRivals(first)).toBe(-1); // not the newest of its bin
    expect(m.olderRivals(handle(m.post(0, 2, 5, 'other source')))).toBe(0);
    expect(m.olderRivals(handle(m.post(1, 1, 5, 'other context')))).toBe(0);
    // An older wildcard in the same context that accepts (1, 5): -1 for receives posted after it.
    const wild = handle(m.post(0, ANY_SOURCE, 5, 'any-five'));
    expect(m.olderRivals(wild)).toBe(-1);
    expect(m.olderRivals(handle(m.post(0, 1, 5, 'c')))).toBe(-1);
    expect(m.olderRivals(handle(m.post(0, 1, 6, 'other tag')))).toBe(0);
    m.cancel(wild);
    expect(m.olderRivals(handle(m.post(0, 1, 5, 'd')))).toBe(3);
    handle(m.post(0, 1, ANY_TAG, 'one-any'));
    expect(m.olderRivals(handle(m.post(0, 1, 7, 'e')))).toBe(-1);
    expect(m.olderRivals(handle(m.post(0, 3, 7, 'f')))).toBe(0);
    m.post(0, ANY_SOURCE, ANY_TAG, 'any-any');
    expect(m.olderRivals(handle(m.post(0, 3, 8, 'g')))).toBe(-1);
    // Once matched, a receive is no longer posted.
    expect(m.arrive(0, 1, 5, 'x')).toBe('a');
    expect(m.olderRivals(first)).toBe(-1);
  });

  it('probe looks without taking; cancel removes one receive once; contexts do not mix', () => {
    const m = new MatchingEngine<string, string>();
    m.arrive(3, 0, 1, 'x');
    expect(m.probe(3, ANY_SOURCE, ANY_TAG)).toEqual({ message: 'x', source: 0, tag: 1 });
    expect(m.probe(3, 0, 1)?.message).toBe('x');
    expect(m.probe(4, ANY_SOURCE, ANY_TAG)).toBeUndefined();
    expect(m.post(4, 0, 1, 'other-context').handle).toBeDefined();
    expect(m.post(3, 0, 1, 'r').message).toBe('x');
    const a = m.post(5, 2, 2, 'a').handle!;
    m.post(5, 2, 2, 'b');
    expect(m.cancel(a)).toBe(true);
    expect(m.cancel(a)).toBe(false);
    expect(m.arrive(5, 2, 2, 'y')).toBe('b');
    expect(m.arrive(4, 0, 1, 'z')).toBe('other-context');
  });

  it('dropContext returns what was queued there, receives in post order', () => {
    const m = new MatchingEngine<string, string>();
    m.post(8, 1, ANY, 'r1');
    m.post(8, ANY, 3, 'r2');
    m.post(8, 4, 4, 'r3');
    m.arrive(9, 1, 1, 'kept');
    expect(m.dropContext(8)).toEqual({ receives: ['r1', 'r2', 'r3'], messages: [] });
    m.arrive(8, 6, 6, 'u1');
    m.arrive(8, 7, 7, 'u2');
    expect(m.dropContext(8)).toEqual({ receives: [], messages: ['u1', 'u2'] });
    expect(m.postedCount).toBe(0);
    expect(m.unexpectedCount).toBe(1);
  });

  it('empty bins are dropped: 100,000 distinct tags leave no more than the parked bins behind', () => {
    const m = new MatchingEngine<number, number>();
    for (let i = 0; i < 100_000; i++) {
      if (i % 2 === 0) {
        m.post(0, i % 13, i, i);
        expect(m.arrive(0, i % 13, i, i)).toBe(i);
      } else {
        m.arrive(0, i % 13, i, i);
        expect(m.post(0, ANY_SOURCE, i, i).message).toBe(i);
      }
    }
    expect(m.binCount).toBeLessThanOrEqual(1 + PARKED_BINS);
    expect(m.postedCount + m.unexpectedCount).toBe(0);
  });

  it('agrees with a linear-scan reference over 20,000 random operations', () => {
    const random = seededRandom(20261124);
    const pick = (n: number) => Math.floor(random() * n);
    const m = new MatchingEngine<number, number>();
    const ref = new ReferenceMatcher();
    const handles = new Map<number, PostedHandle>();
    let id = 0;
    for (let step = 0; step < 20_000; step++) {
      const context = pick(3);
      const op = pick(10);
      const source = pick(4);
      const tag = pick(5);
      if (op < 4) {
        const s = pick(4) === 0 ? ANY_SOURCE : source;
        const t = pick(4) === 0 ? ANY_TAG : tag;
        const r = ++id;
        const got = m.post(context, s, t, r);
        const want = ref.post(context, s, t, r);
        expect(got.message, `step ${step}: post`).toBe(want);
        if (got.handle !== undefined) handles.set(r, got.handle);
      } else if (op < 6) {
        const msg = ++id;
        expect(m.arrive(context, source, tag, msg), `step ${step}: arrive`).toBe(ref.arrive(context, source, tag, msg));
      } else if (op < 8) {
        // The device's two-step arrival: takePosted, and queueUnexpected only when it found none.
        const msg = ++id;
        const taken = m.takePosted(context, source, tag);
        if (taken === undefined) m.queueUnexpected(context, source, tag, msg);
        expect(taken, `step ${step}: takePosted`).toBe(ref.arrive(context, source, tag, msg));
      } else if (op === 8) {
        const s = pick(3) === 0 ? ANY_SOURCE : source;
        const t = pick(3) === 0 ? ANY_TAG : tag;
        expect(m.probe(context, s, t)?.message, `step ${step}: probe`).toBe(ref.probe(context, s, t));
      } else if (handles.size > 0) {
        const keys = [...handles.keys()];
        const r = keys[pick(keys.length)];
        expect(m.cancel(handles.get(r)!), `step ${step}: cancel`).toBe(ref.cancel(r));
        handles.delete(r);
      }
      expect(m.postedCount).toBe(ref.posted.length);
      expect(m.unexpectedCount).toBe(ref.unexpected.length);
    }
  });
});

/** MPI matching by linear scans: obviously right, O(n). */
class ReferenceMatcher {
  posted: { context: number; source: number; tag: number; r: number }[] = [];
  unexpected: { context: number; source: number; tag: number; m: number }[] = [];
  static accepts(ps: number, pt: number, s: number, t: number): boolean {
    return (ps === ANY || ps === s) && (pt === ANY || pt === t);
  }
  post(context: number, source: number, tag: number, r: number): number | undefined {
    const i = this.unexpected.findIndex((u) => u.context === context && ReferenceMatcher.accepts(source, tag, u.source, u.tag));
    if (i >= 0) return this.unexpected.splice(i, 1)[0].m;
    this.posted.push({ context, source, tag, r });
    return undefined;
  }
  arrive(context: number, source: number, tag: number, m: number): number | undefined {
    const i = this.posted.findIndex((p) => p.context === context && ReferenceMatcher.accepts(p.source, p.tag, source, tag));
    if (i >= 0) return this.posted.splice(i, 1)[0].r;
    this.unexpected.push({ context, source, tag, m });
    return undefined;
  }
  probe(context: number, source: number, tag: number): number | undefined {
    return this.unexpected.find((u) => u.context === context && ReferenceMatcher.accepts(source, tag, u.source, u.tag))?.m;
  }
  cancel(r: number): boolean {
    const i = this.posted.findIndex((p) => p.r === r);
    if (i < 0) return false;
    this.posted.splice(i, 1);
    return true;
  }
}

describe('the matching engine keeps emptied bins for reuse, boundedly', () => {
  it('a ping-pong of one (source, tag) reuses its bins and its context: the same lists, no new ones', () => {
    const m = new MatchingEngine<number, number>();
    m.post(0, 1, 5, 0);
    expect(m.takePosted(0, 1, 5)).toBe(0);
    m.queueUnexpected(0, 1, 5, 0);
    expect(m.post(0, 1, 5, 0).message).toBe(0);
    const held = m.binCount;
    for (let i = 1; i < 1000; i++) {
      m.post(0, 1, 5, i);
      expect(m.takePosted(0, 1, 5)).toBe(i);
      m.queueUnexpected(0, 1, 5, i);
      expect(m.post(0, 1, 5, i).message).toBe(i);
    }
    expect(m.binCount).toBe(held);
  });

  it('a parked bin that is reused and emptied again matches in order, and one whose context went is no harm', () => {
    const m = new MatchingEngine<string, string>();
    m.post(0, 1, 5, 'a');
    m.takePosted(0, 1, 5);
    // Another context empties: context 0 goes, its parked bin with it; context 0 comes back afresh.
    m.post(1, 1, 5, 'b');
    m.takePosted(1, 1, 5);
    m.post(0, 1, 5, 'c');
    m.post(0, 1, 5, 'd');
    expect(m.takePosted(0, 1, 5)).toBe('c');
    expect(m.takePosted(0, 1, 5)).toBe('d');
    expect(m.takePosted(0, 1, 5)).toBeUndefined();
    // Many distinct tags after: the parked bins are evicted, whatever context they were in.
    for (let t = 0; t < 4 * PARKED_BINS; t++) {
      m.post(2, 3, t, 'x');
      expect(m.takePosted(2, 3, t)).toBe('x');
    }
    expect(m.binCount).toBeLessThanOrEqual(1 + PARKED_BINS);
    expect(m.dropContext(0)).toEqual({ receives: [], messages: [] });
  });
});
