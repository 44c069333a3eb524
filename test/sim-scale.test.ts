// The simulator at scale (bench/sim-scale.mjs measures it): a job of 1,024 simulated ranks runs to
// the end. Such a job used to fail every time: each connection's set-up took the host longer than
// the endpoints' 10-second connect timeout in wall time, and an endpoint the peer had accepted was
// freed under the live job (MPI_ERR_PROC_FAILED ... lost (FREED)); its ranks also held their program's
// load past the kernel's hold timeout on a loaded host.
import { describe, expect, it } from 'vitest';
import { daplRun } from './support/dapl-run.js';

const JOB_MS = 600_000;

describe('dapl run --provider ib at scale', () => {
  it(
    'pi.mjs at 1,024 ranks completes with the right answer, its virtual end time reported',
    async () => {
      const ran = await daplRun(['-n', '1024', '--provider', 'ib', 'examples/pi.mjs'], { DAPL_SIM_REPORT: '1' }, JOB_MS);
      expect(ran.killed).toBe(false);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(/^pi is approximately 3\.14159265358\d+, error \d\.\d{3}e-\d+ \(1000000 intervals, 1024 ranks on ib\)$/m);
      expect(ran.stderr).toMatch(/^dapl run: simulated 1024 ranks on ib: virtual end time [\d.]+ ns, \d+ events/m);
    },
    JOB_MS,
  );
});
