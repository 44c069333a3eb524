import { format, inspect } from 'node:util';
import { rankContext } from '../../runtime/rank-context.js';
import { inProcessState } from './in-process-state.js';
import { hostOf, RankExitRequest, type RankHost } from './rank-host.js';

type Write = NodeJS.WriteStream['write'];
type WriteCallback = (error?: Error | null) => void;

/** Console methods and the stream each writes to, as Node's console does. */
const CONSOLE_STREAMS = { log: 'stdout', info: 'stdout', debug: 'stdout', error: 'stderr', warn: 'stderr' } as const;

/** Consoles already routed: a test runner may put its own in place of Node's. */
const routedConsoles = new WeakSet<Console>();

/**
 * Patch the process the ranks share, once: `process.stdout.write`, `process.stderr.write` and
 * `process.exit` called in a rank's context go to its job (a `RankHost`), and an uncaught
 * exception or unhandled rejection raised in one fails that rank instead of the process. Outside
 * any rank everything behaves as before. The patches stay after a job ends, because the ranks it
 * abandoned may still run: their output is dropped, their exit and errors ignored.
 */
export function installProcessInterceptors(): void {
  routeConsole(globalThis.console);
  if (inProcessState.interceptorsInstalled) return;
  inProcessState.interceptorsInstalled = true;
  for (const stream of ['stdout', 'stderr'] as const) {
    const target = process[stream];
    target.write = routedWrite(stream, target.write) as Write;
  }
  const exit = process.exit;
  process.exit = function exitRank(code?: number | string | null): never {
    const host = currentHost();
    if (host === undefined) return exit.call(process, code as number);
    const status = exitStatus(code);
    host.exit(status);
    throw new RankExitRequest(status);
  } as typeof process.exit;
  process.on('uncaughtException', (error) => onUncaught('uncaughtException', error));
  process.on('unhandledRejection', (reason) => onUncaught('unhandledRejection', reason));
}

/**
 * Node's console writes through `process.stdout.write`, but a test runner's replacement may not:
 * a rank's `console.log` and friends go to its job whatever the console is.
 */
function routeConsole(target: Console): void {
  if (routedConsoles.has(target)) return;
  routedConsoles.add(target);
  for (const [method, stream] of Object.entries(CONSOLE_STREAMS) as [keyof typeof CONSOLE_STREAMS, 'stdout' | 'stderr'][]) {
    const original = target[method];
    target[method] = function routedConsoleMethod(this: Console, ...args: unknown[]): void {
      const host = currentHost();
      if (host === undefined) return original.apply(this, args);
      host.write(stream, Buffer.from(`${format(...args)}\n`, 'utf8'));
    };
  }
}

function currentHost(): RankHost | undefined {
  return hostOf(rankContext.getStore());
}

function routedWrite(stream: 'stdout' | 'stderr', original: Write): (...args: unknown[]) => boolean {
  return function write(this: NodeJS.WriteStream, ...args: unknown[]): boolean {
    const host = currentHost();
    if (host === undefined) return (original as (...a: unknown[]) => boolean).apply(this, args);
    const [chunk, encodingOrCallback, maybeCallback] = args;
    const encoding = typeof encodingOrCallback === 'string' ? (encodingOrCallback as BufferEncoding) : undefined;
    const callback = (typeof encodingOrCallback === 'function' ? encodingOrCallback : maybeCallback) as WriteCallback | undefined;
    host.write(stream, toBuffer(chunk, encoding));
    if (typeof callback === 'function') process.nextTick(callback, null);
    return true;
  };
}

function toBuffer(chunk: unknown, encoding: BufferEncoding | undefined): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, encoding ?? 'utf8');
  if (Buffer.isBuffer(chunk)) return chunk;
  if (ArrayBuffer.isView(chunk)) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return Buffer.from(String(chunk), 'utf8');
}

/** Node's rule: no code means `process.exitCode`, else 0; exit statuses are 8 bits. */
function exitStatus(code: number | string | null | undefined): number {
  const value = code ?? process.exitCode ?? 0;
  const status = Number(value);
  return Number.isInteger(status) ? status & 0xff : 1;
}

function onUncaught(event: 'uncaughtException' | 'unhandledRejection', error: unknown): void {
  const host = currentHost();
  if (host !== undefined) {
    host.fail(error);
    return;
  }
  // Not a rank's: with another listener (a test runner's) it is theirs; alone, do what Node would have.
  if (process.listenerCount(event) > 1) return;
  process.stderr.write(`${inspect(error)}\n`);
  process.exit(1);
}
