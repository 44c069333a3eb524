import { describe, expect, it } from 'vitest';
import { loadLibrarySections } from '../src/config/library-sections.js';

const SPEC = { name: 'eagerLimit', type: 'integer', default: 8192, help: 'h' } as const;

function notFound(specifier: string): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /somewhere`), { code: 'ERR_MODULE_NOT_FOUND' });
}

describe('loadLibrarySections', () => {
  it('returns each installed library section and leaves out one that is not installed', async () => {
    const sections = await loadLibrarySections(
      async (specifier) => {
        if (specifier === '@x/absent/config') throw notFound('@x/absent');
        return { CONFIG_SECTION: { name: 'mpi', parameters: [SPEC] } };
      },
      { mpi: '@x/mpi/config', absent: '@x/absent/config' },
    );
    expect(sections).toEqual([{ name: 'mpi', specifier: '@x/mpi/config', parameters: [SPEC] }]);
  });

  it("carries a section's check of a provider and its line for dapl info", async () => {
    const check = () => 'needs more';
    const supports = () => ({ label: 'x devices', value: 'a, b' });
    const [section] = await loadLibrarySections(async () => ({ CONFIG_SECTION: { name: 'mpi', parameters: [SPEC], check, supports } }), { mpi: '@x/mpi/config' });
    expect(section.check).toBe(check);
    expect(section.supports).toBe(supports);
  });

  it('an installed version of a library without the config export declares nothing', async () => {
    const notExported = Object.assign(new Error("Package subpath './config' is not defined by \"exports\""), { code: 'ERR_PACKAGE_PATH_NOT_EXPORTED' });
    const sections = await loadLibrarySections(
      async () => {
        throw notExported;
      },
      { mpi: '@x/mpi/config' },
    );
    expect(sections).toEqual([]);
  });

  it('a library that loads without a valid CONFIG_SECTION is its defect, said by name', async () => {
    await expect(loadLibrarySections(async () => ({ CONFIG_SECTION: { name: 'other', parameters: [] } }), { mpi: '@x/mpi/config' })).rejects.toThrow(
      "@x/mpi/config does not export CONFIG_SECTION { name: 'mpi', parameters: [...] }",
    );
    await expect(loadLibrarySections(async () => ({}), { mpi: '@x/mpi/config' })).rejects.toThrow(TypeError);
  });

  it('a failure other than a missing module is not hidden', async () => {
    await expect(
      loadLibrarySections(async () => {
        throw new SyntaxError('Unexpected token');
      }, { mpi: '@x/mpi/config' }),
    ).rejects.toThrow('Unexpected token');
  });
});
