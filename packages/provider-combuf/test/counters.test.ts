import { describe, expect, it } from 'vitest';
import { DtoStatus, type RmrTriplet } from '@dapl/core';
import { nextEvent, simPairRunner, type SimPairSide } from '@dapl/core/testing';
import { createCombufProvider } from '../src/index.js';

const runPair = simPairRunner(createCombufProvider);

type Counts = { tcwCreated: number; tcwReused: number; sendRightsAcquired: number };

function tcwCounts(side: SimPairSide): Counts {
  const c = side.ia.counters();
  return { tcwCreated: c.tcwCreated, tcwReused: c.tcwReused, sendRightsAcquired: c.sendRightsAcquired };
}

async function succeeded(side: SimPairSide): Promise<void> {
  const done = await nextEvent(side.request);
  expect(done.type === 'dto-completion' && done.status).toBe(DtoStatus.SUCCESS);
}

/** Rank 0 performs each step (and waits for it); returns rank 0's counters after each, and rank 1's at the end. */
async function countersAfter(parameters: Record<string, unknown>, steps: readonly ((side: SimPairSide) => void)[]): Promise<{ client: Counts[]; server: Counts }> {
  const client: Counts[] = [];
  let server: Counts | undefined;
  const result = await runPair(parameters, 64, async (side) => {
    if (side.rank === 1) {
      for (let i = 0; i < steps.length; i++) side.ep.postRecv([{ lmr: side.lmr, offset: 32, length: 32 }], `r${i}`);
      await nextEvent(side.connect); // rank 0 disconnects when done
      server = tcwCounts(side);
      return;
    }
    client.push(tcwCounts(side));
    for (const step of steps) {
      step(side);
      await succeeded(side);
      client.push(tcwCounts(side));
    }
    side.ep.disconnect();
    await nextEvent(side.connect);
  });
  expect(result.outcome).toBe('completed');
  return { client, server: server! };
}

const write = (at: number, length = 8) => (side: SimPairSide): void => {
  const remote: RmrTriplet = { ...side.remote, targetOffset: at, length };
  side.ep.postRdmaWrite([{ lmr: side.lmr, offset: 0, length }], 'w', remote);
};
const read = (at: number) => (side: SimPairSide): void => {
  side.ep.postRdmaRead([{ lmr: side.lmr, offset: 16, length: 8 }], 'r', { ...side.remote, targetOffset: at, length: 8 });
};
const send = (length: number) => (side: SimPairSide): void => {
  side.ep.postSend([{ lmr: side.lmr, offset: 0, length }], 's');
};

describe('combuf TCW and send-right counters', () => {
  it('start at zero; the first transfer acquires the send right and creates a TCW, the same combination reuses it', async () => {
    const { client, server } = await countersAfter({}, [write(0), write(0), write(8), write(0, 4), read(0), read(0), send(8), send(8), send(4)]);
    expect(client).toEqual([
      { tcwCreated: 0, tcwReused: 0, sendRightsAcquired: 0 },
      { tcwCreated: 1, tcwReused: 0, sendRightsAcquired: 1 },
      { tcwCreated: 1, tcwReused: 1, sendRightsAcquired: 1 },
      { tcwCreated: 2, tcwReused: 1, sendRightsAcquired: 1 }, // another target address
      { tcwCreated: 3, tcwReused: 1, sendRightsAcquired: 1 }, // another size
      { tcwCreated: 4, tcwReused: 1, sendRightsAcquired: 1 }, // a read is its own TCW
      { tcwCreated: 4, tcwReused: 2, sendRightsAcquired: 1 },
      { tcwCreated: 5, tcwReused: 2, sendRightsAcquired: 1 }, // a send: into the peer's receive area
      { tcwCreated: 5, tcwReused: 3, sendRightsAcquired: 1 },
      { tcwCreated: 6, tcwReused: 3, sendRightsAcquired: 1 },
    ]);
    // The target's NIA creates no TCW and needs no right to be written to.
    expect(server).toEqual({ tcwCreated: 0, tcwReused: 0, sendRightsAcquired: 0 });
  });

  it('past tcwCacheSize the least recently used TCW is rewritten', async () => {
    const { client } = await countersAfter({ tcwCacheSize: 2 }, [write(0), write(8), write(0), write(16), write(8), write(0)]);
    // 0 new, 8 new, 0 reused (8 is now oldest), 16 new (evicts 8), 8 new (evicts 0), 0 new.
    expect(client.at(-1)).toEqual({ tcwCreated: 5, tcwReused: 1, sendRightsAcquired: 1 });
  });

  it('an IA opened directly starts with the counters at zero', async () => {
    const combuf = createCombufProvider();
    const ia = await combuf.openIa();
    try {
      expect(ia.counters()).toMatchObject({ tcwCreated: 0, tcwReused: 0, sendRightsAcquired: 0 });
    } finally {
      await ia.close();
    }
  });
});
