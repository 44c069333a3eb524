import { describe, expect, it } from 'vitest';
import { isSimDeadlockError, type SimDeadlockError } from '@dapl/core';
import { nextEvent, simPairRunner } from '@dapl/core/testing';
import { createCombufProvider } from '../src/index.js';

const runPair = simPairRunner(createCombufProvider);

describe('combuf EVD waits under kernel.run', () => {
  it("two ranks that both wait for a receive: the deadlock report names each rank's recv EVD", async () => {
    let error: unknown;
    try {
      await runPair({}, 64, async (side) => {
        await nextEvent(side.recv);
      });
    } catch (e) {
      error = e;
    }
    expect(isSimDeadlockError(error)).toBe(true);
    expect((error as SimDeadlockError).blocked).toEqual([
      { rank: 0, waitingFor: 'evd.wait() on the recv EVD of combuf:0' },
      { rank: 1, waitingFor: 'evd.wait() on the recv EVD of combuf:1' },
    ]);
  });
});
