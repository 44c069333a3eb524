import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { chooseInterface } from '../src/interface-choice.js';
import { tcpProvider } from '../src/provider.js';

const external = Object.values(networkInterfaces())
  .flatMap((a) => a ?? [])
  .filter((a) => !a.internal && a.family === 'IPv4')
  .map((a) => a.address);

describe('tcp.interface auto', () => {
  it('keeps a configured address, and picks loopback while the job is on one host', async () => {
    expect(await chooseInterface('10.0.0.5', { spansHosts: true })).toBe('10.0.0.5');
    expect(await chooseInterface('auto', {})).toBe('127.0.0.1');
    expect(await chooseInterface('auto', { spansHosts: false, launcherAddress: external[0] })).toBe('127.0.0.1');
  });

  it("across hosts: the address that routes to the launcher's host, else the first non-loopback IPv4 address", async () => {
    expect(await chooseInterface('auto', { spansHosts: true })).toBe(external[0] ?? '127.0.0.1');
    // A launcher on loopback says nothing about the other hosts; an unresolvable name neither.
    expect(await chooseInterface('auto', { spansHosts: true, launcherAddress: '127.0.0.1' })).toBe(external[0] ?? '127.0.0.1');
    expect(await chooseInterface('auto', { spansHosts: true, launcherAddress: 'no-such-host.invalid' })).toBe(external[0] ?? '127.0.0.1');
    for (const address of external) expect(await chooseInterface('auto', { spansHosts: true, launcherAddress: address })).toBe(address);
  });

  it('refuses hints of the wrong type, naming the option', async () => {
    await expect(chooseInterface('auto', { spansHosts: 'yes' as unknown as boolean })).rejects.toMatchObject({ argument: 'options.spansHosts' });
    await expect(chooseInterface('auto', { launcherAddress: '' })).rejects.toMatchObject({ argument: 'options.launcherAddress' });
  });

  it('an IA opened for a job across hosts listens on (and advertises) the chosen address', async () => {
    const ia = await tcpProvider.openIa({ spansHosts: true });
    try {
      expect(ia.address).toBe(external[0] ?? '127.0.0.1');
    } finally {
      await ia.close();
    }
    const local = await tcpProvider.openIa({});
    try {
      expect(local.address).toBe('127.0.0.1');
    } finally {
      await local.close();
    }
  });
});
