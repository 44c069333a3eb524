import { randomBytes } from 'node:crypto';
import { JOB_KEY_ENV } from '../config/core-parameters.js';
import { decodeJobKey, encodeJobKey } from '../config/job-key.js';
import type { Runtime } from './runtime.js';

/** The KVS key under which rank 0 publishes a job key it generated. */
export const JOB_KEY_KVS_KEY = 'dapl-job-key';

/** Bytes of a generated job key. */
export const GENERATED_JOB_KEY_BYTES = 32;

/**
 * The secret every rank's IA authenticates connections with. `DAPL_JOB_KEY` when set (our
 * launcher sets it); otherwise (e.g. under MPICH's mpiexec, whose KVS is private to the job)
 * rank 0 makes one and hands it to the others through the KVS. Collective unless the variable
 * is set or the job has one rank.
 */
export async function resolveJobKey(runtime: Runtime, env: Readonly<Record<string, string | undefined>> = process.env): Promise<Uint8Array> {
  const fromEnv = env[JOB_KEY_ENV];
  // An empty variable counts as unset, as in DaplConfig.
  if (fromEnv !== undefined && fromEnv !== '') return decodeJobKey(fromEnv, `env ${JOB_KEY_ENV}`);
  if (runtime.size === 1) return new Uint8Array(randomBytes(GENERATED_JOB_KEY_BYTES));
  if (runtime.rank === 0) {
    const key = new Uint8Array(randomBytes(GENERATED_JOB_KEY_BYTES));
    await runtime.put(JOB_KEY_KVS_KEY, encodeJobKey(key));
    await runtime.fence();
    return key;
  }
  await runtime.fence();
  return decodeJobKey(await runtime.get(JOB_KEY_KVS_KEY), `the job's KVS key ${JOB_KEY_KVS_KEY}`);
}
