// Adding a provider touches no file of core: a module in a test folder, registered by a
// dapl.config.json, loads through the registry and the composition root and passes the suite.
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { closeContainer, createContainer, createProviderRegistry, DaplConfig, DatProvider, InterfaceAdapter } from '@dapl/core';
import { describeProviderConformance } from '@dapl/core/testing';

const folder = fileURLToPath(new URL('./fixtures/provider-in-a-folder/', import.meta.url));
const config = await DaplConfig.load({ cwd: folder, env: {} });
const container = await createContainer(config);
const provider = await container.getAsync<DatProvider>(DatProvider);

describe('a provider registered by dapl.config.json', () => {
  it('is the selected provider, found through the registry with the config file as its source', async () => {
    expect(config.providerKey).toBe('folder');
    const registry = await createProviderRegistry(config);
    const entry = registry.list().find((e) => e.key === 'folder');
    expect(entry?.source).toMatch(/dapl\.config\.json/);
    expect(provider.name).toBe('folder');
  });

  it('is opened by the composition root', async () => {
    const ia = await container.getAsync<InterfaceAdapter>(InterfaceAdapter);
    expect(ia.provider).toBe(provider);
    expect(ia.query().provider).toBe('folder');
    await closeContainer(container);
  });
});

describeProviderConformance({
  name: 'folder (registered by dapl.config.json)',
  provider,
  openIa: (options) => provider.openIa(options),
  crash: (ia) => (ia as unknown as { crash(): Promise<void> }).crash(),
  openForeignIa: () => provider.openIa({ jobKey: randomBytes(32) }),
});
