/**
 * The variables a PMI-1 launcher gives a rank (notes/pmi-hydra.md): `PMI_FD` + `PMI_RANK` + `PMI_SIZE`
 * (an inherited socket), or `PMI_PORT=host:port` + `PMI_ID` (connect, then `initack`). `PMI_FD` wins
 * when both are set, as in MPICH's own client. A malformed variable is a DatError naming it.
 */
import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';

/** Where a rank finds its PMI server: an inherited descriptor (`PMI_FD`) or a host and port (`PMI_PORT`). */
export type PmiEnvironment =
  | { readonly kind: 'fd'; readonly fd: number; readonly rank: number; readonly size: number }
  | { readonly kind: 'port'; readonly host: string; readonly port: number; readonly pmiId: number };

/** True when the environment asks for PMI (the variables may still be malformed). */
export function hasPmiEnvironment(env: NodeJS.ProcessEnv): boolean {
  return env.PMI_FD !== undefined || env.PMI_PORT !== undefined;
}

/** The PMI settings of `env`, or undefined when neither `PMI_FD` nor `PMI_PORT` is set. */
export function readPmiEnvironment(env: NodeJS.ProcessEnv): PmiEnvironment | undefined {
  if (env.PMI_FD !== undefined) {
    const fd = readInteger(env, 'PMI_FD', 0, 1_000_000, 'a file descriptor');
    const size = readInteger(env, 'PMI_SIZE', 1, 1_000_000, 'a job size', 'PMI_FD');
    const rank = readInteger(env, 'PMI_RANK', 0, size - 1, `a rank below PMI_SIZE=${size}`, 'PMI_FD');
    return { kind: 'fd', fd, rank, size };
  }
  if (env.PMI_PORT !== undefined) {
    const { host, port } = readHostPort(env.PMI_PORT);
    const pmiId = readInteger(env, 'PMI_ID', 0, 1_000_000, 'a rank id', 'PMI_PORT');
    return { kind: 'port', host, port, pmiId };
  }
  return undefined;
}

function readInteger(env: NodeJS.ProcessEnv, name: string, min: number, max: number, what: string, requiredBy?: string): number {
  const text = env[name];
  if (text === undefined) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${requiredBy} is set but ${name} is not; ${name} must be ${what}`, { argument: name });
  }
  const value = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!(value >= min && value <= max)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `${name}=${JSON.stringify(text)} is not ${what} (an integer in [${min}, ${max}])`, { argument: name });
  }
  return value;
}

function readHostPort(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':');
  let host = colon > 0 ? text.slice(0, colon) : '';
  const portText = colon > 0 ? text.slice(colon + 1) : '';
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (host === '' || /\s/.test(host) || !(port >= 1 && port <= 65535)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `PMI_PORT=${JSON.stringify(text)} is not host:port with a port in [1, 65535]`, { argument: 'PMI_PORT' });
  }
  return { host, port };
}
