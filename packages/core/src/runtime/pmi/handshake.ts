/**
 * The start of a PMI-1 conversation (notes/pmi-hydra.md): for a `PMI_PORT` client, `initack` (the
 * server answers with the rank and size); then `init`, `get_maxes`, `get_appnum`, `get_my_kvsname`.
 * A reply that is malformed or refuses `init` fails the channel.
 */
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';
import type { PmiClientChannel } from './pmi-client-channel.js';
import { pmiLimitsProblem, pmiLineBytesFor, type PmiLimits } from './limits.js';
import { intField, pmiMessageText, textField } from './replies.js';
import { PROCESS_MAPPING_KEY } from './process-mapping.js';

/** Who the rank is: known from the environment (`PMI_FD`), or to be asked with `initack` (`PMI_PORT`). */
export type PmiIdentity = { readonly rank: number; readonly size: number } | { readonly pmiId: number };

export interface PmiSession {
  readonly rank: number;
  readonly size: number;
  readonly kvsName: string;
  readonly appnum: number;
  readonly limits: PmiLimits;
  /** `PMI_process_mapping` as the server's KVS holds it (Hydra and `dapl run` put it there), or undefined. */
  readonly processMapping: string | undefined;
}

export function checkPmiIdentity(identity: PmiIdentity): void {
  if ('pmiId' in identity) {
    if (!Number.isSafeInteger(identity.pmiId) || identity.pmiId < 0) {
      throw new DatError(DatStatus.INVALID_PARAMETER, `pmiId ${identity.pmiId} is not an integer >= 0`, { argument: 'pmiId' });
    }
    return;
  }
  if (!Number.isSafeInteger(identity.size) || identity.size < 1) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `size ${identity.size} is not an integer >= 1`, { argument: 'size' });
  }
  if (!Number.isSafeInteger(identity.rank) || identity.rank < 0 || identity.rank >= identity.size) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `rank ${identity.rank} is not an integer in [0, ${identity.size - 1}]`, { argument: 'rank' });
  }
}

export async function pmiHandshake(channel: PmiClientChannel, identity: PmiIdentity, timeoutMs: number | undefined, readMapping = false): Promise<PmiSession> {
  const { rank, size } = 'pmiId' in identity ? await initack(channel, identity.pmiId, timeoutMs) : identity;

  const [init] = await channel.request('init', { pmi_version: 1, pmi_subversion: 1 }, ['response_to_init'], timeoutMs);
  if (intField(init, 'rc') !== 0) throw channel.fail('init', `the PMI server refused init: ${pmiMessageText(init)}`);

  const [maxes] = await channel.request('get_maxes', {}, ['maxes'], timeoutMs);
  const limits: PmiLimits = {
    kvsnameMax: intField(maxes, 'kvsname_max') ?? Number.NaN,
    keylenMax: intField(maxes, 'keylen_max') ?? Number.NaN,
    vallenMax: intField(maxes, 'vallen_max') ?? Number.NaN,
  };
  const problem = pmiLimitsProblem(limits, 'maxes');
  if (problem !== undefined) throw channel.fail('get_maxes', `malformed reply ${pmiMessageText(maxes)}: ${problem.message}`);
  channel.raiseMaxLineBytes(pmiLineBytesFor(limits));

  const [appnumReply] = await channel.request('get_appnum', {}, ['appnum'], timeoutMs);
  const appnum = intField(appnumReply, 'appnum');
  if (appnum === undefined) throw channel.fail('get_appnum', `malformed reply ${pmiMessageText(appnumReply)}: no integer appnum`);

  const [kvsReply] = await channel.request('get_my_kvsname', {}, ['my_kvsname'], timeoutMs);
  const kvsName = textField(kvsReply, 'kvsname');
  if (kvsName === undefined || kvsName === '') throw channel.fail('get_my_kvsname', `malformed reply ${pmiMessageText(kvsReply)}: no kvsname`);

  // Hydra keeps the process mapping in the KVS for PMI-1 clients; a server without it answers rc=-1.
  let processMapping: string | undefined;
  if (readMapping) {
    const [mapReply] = await channel.request('get', { kvsname: kvsName, key: PROCESS_MAPPING_KEY }, ['get_result'], timeoutMs);
    processMapping = intField(mapReply, 'rc') === 0 ? textField(mapReply, 'value') : undefined;
  }

  return { rank, size, kvsName, appnum, limits, processMapping };
}

async function initack(channel: PmiClientChannel, pmiId: number, timeoutMs: number | undefined): Promise<{ rank: number; size: number }> {
  const replies = await channel.request('initack', { pmiid: pmiId }, ['initack', 'set', 'set', 'set'], timeoutMs);
  // Hydra sends `set size`, `set rank`, `set debug`; read them by name, not by position.
  const sets = replies.slice(1);
  const size = sets.map((m) => intField(m, 'size')).find((v) => v !== undefined);
  const rank = sets.map((m) => intField(m, 'rank')).find((v) => v !== undefined);
  if (size === undefined || size < 1 || rank === undefined || rank < 0 || rank >= size) {
    throw channel.fail('initack', `malformed reply ${sets.map(pmiMessageText).join(', ')}: expected set size=N (N >= 1) and set rank=R (0 <= R < N)`);
  }
  return { rank, size };
}
