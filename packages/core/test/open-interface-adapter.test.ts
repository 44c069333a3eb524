import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { DaplConfig } from '../src/config/dapl-config.js';
import { openInterfaceAdapter } from '../src/container/open-interface-adapter.js';
import type { DatProvider, IaOptions } from '../src/dat/provider.js';
import type { InterfaceAdapter } from '../src/dat/ia.js';
import { DatStatus } from '../src/dat/status.js';
import type { Runtime } from '../src/runtime/runtime.js';

const ofSize = (size: number): Runtime => ({ rank: 0, size }) as Runtime;

describe('openInterfaceAdapter and settings the provider does not declare', () => {
  const recorder = (opened: IaOptions[]): DatProvider =>
    ({
      name: 'recorder',
      parameters: [{ name: 'pollUs', type: 'integer', default: 0, min: 0, max: 10, help: 'a setting' }],
      openIa: (options: IaOptions) => {
        opened.push(options);
        return Promise.resolve({} as InterfaceAdapter);
      },
    }) as unknown as DatProvider;

  it('refuses a misspelt variable of its section with INVALID_PARAMETER naming it and its source, and opens nothing', async () => {
    const opened: IaOptions[] = [];
    const config = new DaplConfig({ env: { DAPL_RECORDER_POLLUS: '5', DAPL_OTHER_THING: '1' } });
    const error = await openInterfaceAdapter(recorder(opened), config, ofSize(2), pino({ level: 'silent' }), new Uint8Array(32)).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: DatStatus.INVALID_PARAMETER, argument: 'recorder.pollus' });
    expect((error as Error).message).toContain('recorder.pollus (env DAPL_RECORDER_POLLUS)');
    expect((error as Error).message).toContain('it declares: recorder.pollUs');
    expect(opened).toEqual([]);
  });

  it('opens with a declared one (other sections are not its business)', async () => {
    const opened: IaOptions[] = [];
    const config = new DaplConfig({ env: { DAPL_RECORDER_POLL_US: '5', DAPL_OTHER_THING: '1' } });
    await openInterfaceAdapter(recorder(opened), config, ofSize(2), pino({ level: 'silent' }), new Uint8Array(32));
    expect(opened[0].parameters).toEqual({ pollUs: 5 });
  });
});
