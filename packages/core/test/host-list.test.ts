import { describe, expect, it } from 'vitest';
import { UsageError } from '../src/cli/cli-types.js';
import { readHostsRequest, withDefaultSize } from '../src/cli/run-hosts.js';
import { parseHostfile, parseHostList, placeRanks, totalSlots } from '../src/launcher/host-list.js';
import { shellQuote } from '../src/launcher/remote-rank.js';

const usage = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    if (error instanceof UsageError) return error.message;
  }
  throw new Error('expected a UsageError');
};

describe('host lists', () => {
  it('reads --hosts and MPICH hostfiles, and places ranks as Hydra does', () => {
    const hosts = parseHostList('h1:2,h2:2');
    expect(hosts).toEqual([{ host: 'h1', slots: 2 }, { host: 'h2', slots: 2 }]);
    expect(totalSlots(hosts)).toBe(4);
    expect(placeRanks(hosts, 4)).toEqual(['h1', 'h1', 'h2', 'h2']);
    expect(placeRanks(hosts, 6)).toEqual(['h1', 'h1', 'h2', 'h2', 'h1', 'h1']);
    expect(placeRanks(parseHostList('a,b'), 3)).toEqual(['a', 'b', 'a']);
    expect(parseHostList('[fd00::1]:3,10.0.0.2')).toEqual([{ host: 'fd00::1', slots: 3 }, { host: '10.0.0.2', slots: 1 }]);
    expect(parseHostfile('# nodes\nn1:4\n\n  n2  # spare\n', 'f')).toEqual([{ host: 'n1', slots: 4 }, { host: 'n2', slots: 1 }]);
  });

  it('refuses bad entries, naming where they are', () => {
    expect(usage(() => parseHostList('h1,,h2'))).toMatch(/--hosts must be host\[:count\]/);
    expect(usage(() => parseHostList('h1:0'))).toMatch(/count of "h1:0" must be an integer from 1/);
    expect(usage(() => parseHostList('h1;rm -rf'))).toMatch(/is not host\[:count\]/);
    expect(usage(() => parseHostfile('n1\nn2 slots=4\n', 'hosts.txt'))).toMatch(/^hosts.txt line 2: expected host\[:count\]/);
    expect(usage(() => parseHostfile('# none\n', 'hosts.txt'))).toBe('hosts.txt names no host');
  });

  it('checks the dapl run options together, and -n defaults to the total count', async () => {
    const req = await readHostsRequest({ values: { hosts: 'a:2,b', launcher: './shim -q' }, positionals: [] }, '/');
    expect(req).toEqual({ hosts: [{ host: 'a', slots: 2 }, { host: 'b', slots: 1 }], launcher: ['./shim', '-q'], launcherAddress: undefined });
    expect(withDefaultSize({ values: {}, positionals: [] }, req).values.np).toBe('3');
    expect((await readHostsRequest({ values: { hosts: 'a' }, positionals: [] }, '/'))?.launcher).toEqual(['ssh', '-x']);
    expect(await readHostsRequest({ values: {}, positionals: [] }, '/')).toBeUndefined();
    for (const [values, message] of [
      [{ hosts: 'a', hostfile: 'f' }, /not both/],
      [{ launcher: 'ssh' }, /need --hosts or --hostfile/],
      [{ hosts: 'a', 'in-process': true }, /--in-process/],
      [{ hostfile: '/no/such/file' }, /--hostfile \/no\/such\/file: ENOENT/],
      [{ hosts: 'a', 'launcher-address': 'a b' }, /--launcher-address/],
    ] as const) {
      await expect(readHostsRequest({ values, positionals: [] }, '/')).rejects.toThrow(message);
    }
  });

  it('quotes words for the remote shell', () => {
    expect(shellQuote('/usr/bin/node')).toBe('/usr/bin/node');
    expect(shellQuote("it's a $HOME")).toBe(`'it'\\''s a $HOME'`);
  });
});
