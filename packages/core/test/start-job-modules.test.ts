import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ContainerModule } from 'inversify';
import { describe, expect, it } from 'vitest';
import { DaplConfig } from '../src/config/dapl-config.js';
import { EndpointPreparer } from '../src/container/tokens.js';
import type { Endpoint } from '../src/dat/endpoint.js';
import { SingletonRuntime } from '../src/runtime/singleton-runtime.js';
import { startJob } from '../src/runtime/start-job.js';

const loopbackModule = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'loopback-provider.mjs');

function loopbackConfig(): DaplConfig {
  return new DaplConfig({
    env: { DAPL_JOB_KEY: '000102030405060708090a0b0c0d0e0f' },
    file: { path: '/test/dapl.config.json', topLevel: { provider: 'loop' }, sections: new Map(), providers: [{ key: 'loop', specifier: loopbackModule, source: 'file /test/dapl.config.json' }] },
  });
}

/** A module that contributes a prepare hook recording what it saw. */
function preparing(name: string, seen: string[]): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind<EndpointPreparer>(EndpointPreparer).toConstantValue((ep: Endpoint, peer: number) => {
      seen.push(`${name}:${peer}:${ep.state}`);
    });
  });
}

describe('startJob with upper-library modules', () => {
  it('runs the options\' prepare hook, then every EndpointPreparer bound, on each new endpoint before it connects', async () => {
    const seen: string[] = [];
    const job = await startJob({
      config: loopbackConfig(),
      runtime: new SingletonRuntime({ exit: () => undefined }),
      modules: [preparing('first', seen), preparing('second', seen)],
      connections: { prepare: (ep, peer) => seen.push(`own:${peer}:${ep.state}`) },
    });
    try {
      expect(job.ia.provider.name).toBe('loopback-fixture');
      expect(job.container.getAll(EndpointPreparer)).toHaveLength(2);
      const ep = await job.connections.endpoint(0);
      expect(ep.state).toBe('CONNECTED');
      // A job of one connects to itself: both endpoints of the pair are prepared, unconnected.
      expect(seen.length).toBeGreaterThanOrEqual(3);
      expect(seen.slice(0, 3)).toEqual(['own:0:UNCONNECTED', 'first:0:UNCONNECTED', 'second:0:UNCONNECTED']);
      expect(seen.every((s) => s.endsWith(':UNCONNECTED'))).toBe(true);
    } finally {
      await job.finish();
    }
  });

  it('starts without any hook when no module binds one', async () => {
    const job = await startJob({ config: loopbackConfig(), runtime: new SingletonRuntime({ exit: () => undefined }) });
    try {
      expect(job.container.isBound(EndpointPreparer)).toBe(false);
      expect((await job.connections.endpoint(0)).state).toBe('CONNECTED');
    } finally {
      await job.finish();
    }
  });
});
