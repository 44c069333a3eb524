import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { DaplConfig } from '../src/config/dapl-config.js';
import { openInterfaceAdapter } from '../src/container/open-interface-adapter.js';
import type { DatProvider, IaOptions } from '../src/dat/provider.js';
import type { InterfaceAdapter } from '../src/dat/ia.js';
import { LOCAL_RANKS_ENV, localProcesses } from '../src/runtime/local-processes.js';
import { rankContext } from '../src/runtime/rank-context.js';
import type { Runtime } from '../src/runtime/runtime.js';
import { SingletonRuntime } from '../src/runtime/singleton-runtime.js';

/** Only `size` matters here. */
const ofSize = (size: number): Runtime => ({ rank: 0, size }) as Runtime;

describe('localProcesses', () => {
  it("is the launcher's MPI_LOCALNRANKS when it is a whole number from 1 to the job's size", () => {
    expect(localProcesses(ofSize(8), { [LOCAL_RANKS_ENV]: '2' })).toBe(2);
    expect(localProcesses(ofSize(8), { [LOCAL_RANKS_ENV]: '8' })).toBe(8);
  });

  it("is the job's size when the launcher did not say, or said something that cannot be", () => {
    expect(localProcesses(ofSize(4), {})).toBe(4);
    for (const bad of ['0', '-1', '2.5', 'two', '', '9', '02']) expect(localProcesses(ofSize(4), { [LOCAL_RANKS_ENV]: bad })).toBe(4);
    expect(localProcesses(new SingletonRuntime(), {})).toBe(1);
  });

  it('is 1 for ranks that run in-process, whatever the job size and the environment say', () => {
    const runtime = ofSize(16);
    const inside = rankContext.run({ rank: 3, size: 16, runtime }, () => localProcesses(runtime, { [LOCAL_RANKS_ENV]: '16' }));
    expect(inside).toBe(1);
  });

  it('openInterfaceAdapter hands it to the provider as options.localProcesses', async () => {
    const seen: IaOptions[] = [];
    const provider = {
      name: 'recorder',
      parameters: [],
      openIa: (options: IaOptions) => {
        seen.push(options);
        return Promise.resolve({} as InterfaceAdapter);
      },
    } as unknown as DatProvider;
    const config = new DaplConfig({ env: { [LOCAL_RANKS_ENV]: '3' } });
    await openInterfaceAdapter(provider, config, ofSize(6), pino({ level: 'silent' }), new Uint8Array(32));
    expect(seen[0].localProcesses).toBe(3);
  });
});
