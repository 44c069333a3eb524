// Issue 36, item 5: typos in the configuration are warned about with the closest declared name, and
// every declared section's values are checked, also of providers the job does not use.
import { describe, expect, it } from 'vitest';
import { configWarnings, DaplConfig, parseConfigFile, type DeclaredSettings } from '../src/index.js';

const IB: DeclaredSettings = { section: 'ib', owner: 'provider ib', parameters: [{ name: 'maxNodes', type: 'integer', default: 1024, min: 1, max: 65_535, help: '' }] };
const MPI: DeclaredSettings = { section: 'mpi', owner: 'library @dapl/mpi', parameters: [{ name: 'eagerLimit', type: 'integer', default: 8192, min: 0, help: '' }] };

describe('configWarnings', () => {
  it('names a DAPL_* variable nothing declares, with the closest declared one', () => {
    const config = new DaplConfig({ env: { DAPL_PROVDER: 'ib', DAPL_LOG_LEVL: 'debug', DAPL_IB_MAX_NODS: '3', DAPL_WHOLLY_UNRELATED_THING: '1', DAPL_JOB_KEY: undefined, HOME: '/root' } });
    expect(configWarnings(config, [IB, MPI]).sort()).toEqual([
      'DAPL_IB_MAX_NODS is set but no dapl setting reads it; did you mean DAPL_IB_MAX_NODES?',
      'DAPL_LOG_LEVL is set but no dapl setting reads it; did you mean DAPL_LOG_LEVEL?',
      'DAPL_PROVDER is set but no dapl setting reads it; did you mean DAPL_PROVIDER?',
      'DAPL_WHOLLY_UNRELATED_THING is set but no dapl setting reads it',
    ]);
  });

  it('names a config-file section or key nothing declares, with the closest declared one', () => {
    const file = parseConfigFile('{"log":{"levle":"debug"},"mpl":{"eagerLimit":1},"ib":{"maxNode":2}}', '/p/dapl.config.json');
    expect(configWarnings(new DaplConfig({ file }), [IB, MPI])).toEqual([
      'log.levle in /p/dapl.config.json is not a setting of dapl core; did you mean log.level?',
      '"mpl" in /p/dapl.config.json is not a section of any provider or library; did you mean mpi?',
      'ib.maxNode in /p/dapl.config.json is not a setting of provider ib; did you mean ib.maxNodes?',
    ]);
  });

  it('checks the values of every declared section, also one the job does not use', () => {
    const warnings = configWarnings(new DaplConfig({ env: { DAPL_IB_MAX_NODES: 'zero' } }), [IB, MPI]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^provider ib: DAT_INVALID_PARAMETER: invalid value for ib\.maxNodes from env DAPL_IB_MAX_NODES: "zero"; expected an integer in \[1, 65535\]/);
  });

  it('says nothing about a configuration of declared names and good values, nor about other variables', () => {
    const file = parseConfigFile('{"provider":"ib","log":{"level":"info"},"ib":{"maxNodes":4}}', '/p/dapl.config.json');
    const config = new DaplConfig({ file, env: { DAPL_PROVIDER: 'tcp', DAPL_MPI_EAGER_LIMIT: '4k', DAPL_CONFIG: '/p/dapl.config.json', DAPL_CONFIG_CHECKED: '1', PATH: '/bin' } });
    expect(configWarnings(config, [IB, MPI])).toEqual([]);
  });
});
