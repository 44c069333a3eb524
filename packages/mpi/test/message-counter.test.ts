import { describe, expect, it } from 'vitest';
import { AdvertisedReceives, type Advertisement } from '../src/device/rdma/advertised-receives.js';
import { ClaimableSends } from '../src/device/rdma/claimable-sends.js';
import { MessageCounter } from '../src/device/rdma/message-counter.js';

function ad(epoch: number, ordinal: number, receiverRequest = ordinal): Advertisement {
  return { receiverRequest, epoch, ordinal, rmrContext: 1n, targetOffset: 0, length: 1024 };
}

describe('MessageCounter', () => {
  it('counts per (context, tag) and predicts the next ordinal without counting', () => {
    const c = new MessageCounter();
    expect(c.nextOrdinal(0, 5)).toBe(1);
    expect(c.nextEpoch(1)).toBe(0);
    expect(c.count(0, 5)).toBe(1);
    expect(c.count(0, 5)).toBe(2);
    expect(c.count(2, 5)).toBe(1);
    expect(c.count(0, 6)).toBe(1);
    expect(c.counted(0, 5)).toBe(2);
    expect(c.nextOrdinal(0, 5)).toBe(3);
    expect(c.nextEpoch(3)).toBe(0);
    expect(c.counted(4, 4)).toBe(0);
  });

  it('two counters fed the same messages agree on every epoch and ordinal, across the key limit', () => {
    const sender = new MessageCounter(8);
    const receiver = new MessageCounter(8);
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const tag = seed % 11;
      const predicted = sender.nextOrdinal(0, tag);
      const predictedEpoch = sender.nextEpoch(predicted);
      const ordinal = sender.count(0, tag);
      expect({ epoch: sender.epoch, ordinal }).toEqual({ epoch: predictedEpoch, ordinal: predicted });
      expect(receiver.count(0, tag)).toBe(ordinal);
      expect(receiver.epoch).toBe(sender.epoch);
    }
    expect(sender.epoch).toBeGreaterThan(10);
  });
});

describe('AdvertisedReceives', () => {
  it('hands out the advertisement naming the message, dropping those earlier messages took', () => {
    const a = new AdvertisedReceives();
    a.add(0, 5, ad(0, 2));
    a.add(0, 5, ad(0, 3));
    a.add(0, 5, ad(0, 5));
    expect(a.take(0, 5, 0, 1)).toBeUndefined(); // message 1 has none; 2, 3, 5 stay
    expect(a.take(0, 5, 0, 3)?.ordinal).toBe(3); // 2 was taken by another message: dropped
    expect(a.take(0, 5, 0, 4)).toBeUndefined();
    expect(a.size).toBe(1);
    expect(a.take(0, 5, 0, 5)?.ordinal).toBe(5);
    expect(a.size).toBe(0);
    expect(a.take(0, 5, 0, 6)).toBeUndefined();
  });

  it('never hands out an advertisement of another epoch, tag or context', () => {
    const a = new AdvertisedReceives();
    a.add(0, 5, ad(0, 1));
    a.add(0, 5, ad(1, 1));
    a.add(1, 5, ad(1, 1, 99));
    expect(a.take(0, 6, 1, 1)).toBeUndefined();
    expect(a.take(0, 5, 1, 1)?.receiverRequest).toBe(1);
    expect(a.take(0, 5, 1, 1)).toBeUndefined();
    a.forgetFrom(1, 5, 0, 1);
    expect(a.take(1, 5, 1, 1)).toBeUndefined();
    expect(a.size).toBe(0);
  });

  it('a receive taken back forgets its advertisement and the later ones of its key, not the earlier ones', () => {
    const a = new AdvertisedReceives();
    for (const ordinal of [1, 2, 3]) a.add(0, 5, ad(0, ordinal, ordinal));
    a.add(0, 5, ad(1, 1, 4));
    a.add(0, 6, ad(0, 2, 5));
    a.forgetFrom(0, 5, 0, 2);
    expect(a.take(0, 5, 0, 1)?.receiverRequest).toBe(1); // older than the one taken back: kept
    expect(a.take(0, 5, 0, 2)).toBeUndefined();
    expect(a.take(0, 5, 0, 3)).toBeUndefined();
    expect(a.take(0, 5, 1, 1)).toBeUndefined(); // a later epoch is later too
    expect(a.take(0, 6, 0, 2)?.receiverRequest).toBe(5); // another tag: untouched
    expect(a.size).toBe(0);
  });
});

describe('ClaimableSends', () => {
  it('finds a send by context, tag, epoch and ordinal, once; the same ordinal in another epoch is another send', () => {
    const c = new ClaimableSends<string>();
    c.add(0, 5, 0, 1, 'e0 #1');
    c.add(0, 5, 1, 1, 'e1 #1');
    c.add(0, 5, 0, 2, 'e0 #2');
    c.add(2, 5, 0, 1, 'context 2');
    expect(c.take(0, 5, 1, 1)).toBe('e1 #1');
    expect(c.take(0, 5, 1, 1)).toBeUndefined();
    expect(c.take(0, 5, 0, 1)).toBe('e0 #1');
    expect(c.take(0, 6, 0, 2)).toBeUndefined();
    expect(c.take(0, 5, 0, 2)).toBe('e0 #2');
    c.clear();
    expect(c.take(2, 5, 0, 1)).toBeUndefined();
  });
});
