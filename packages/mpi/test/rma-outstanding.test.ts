import { describe, expect, it } from 'vitest';
import { Outstanding } from '../src/rma/outstanding.js';

describe('Outstanding', () => {
  it('lets a synchronisation message overtake ordered writes but not the rest, and idles only when all are done', async () => {
    const o = new Outstanding(2);
    const events: string[] = [];
    o.add(1, true);
    o.add(1);
    void o.overtakable(1).then(() => events.push('overtakable'));
    void o.idle(1).then(() => events.push('idle'));
    await Promise.resolve();
    expect(events).toEqual([]);
    o.done(1, undefined, false);
    await Promise.resolve();
    expect(events).toEqual(['overtakable']);
    o.done(1, undefined, true);
    await Promise.resolve();
    expect(events).toEqual(['overtakable', 'idle']);
  });

  it('is overtakable at once when only ordered writes are outstanding', async () => {
    const o = new Outstanding(1);
    o.add(0, true);
    await expect(o.overtakable(0)).resolves.toBeUndefined();
    let idle = false;
    void o.idle(0).then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
  });
});
