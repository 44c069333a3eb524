import { randomFillSync } from 'node:crypto';
import { expect } from 'vitest';
import { isDatError, type DatError } from '../../dat/errors.js';
import { DatStatus, type DtoStatus } from '../../dat/status.js';
import type { EventDispatcher } from '../../dat/evd.js';
import type { ConnectionEvent, ConnectionEventType, DatEvent, DatEventType, DtoCompletionEvent, DtoOp } from '../../dat/events.js';

/** The event object of a given type (connection events share one interface). */
export type EventOf<T extends DatEventType> = T extends ConnectionEventType ? ConnectionEvent : Extract<DatEvent, { type: T }>;

/** One line describing an event, for failure messages. */
export function summarize(event: DatEvent): string {
  switch (event.type) {
    case 'dto-completion':
      return `dto-completion{op: ${event.op}, cookie: ${String(event.cookie)}, status: ${event.status}, length: ${event.transferredLength}${event.reason === undefined ? '' : `, reason: ${event.reason}`}}`;
    case 'async-error':
      return `async-error{${event.status}: ${event.message}}`;
    case 'software':
      return `software{${String(event.value)}}`;
    case 'connection-request':
      return 'connection-request';
    case 'srq-limit-reached':
      return `srq-limit-reached{posted: ${event.posted}}`;
    case 'srq-ep-drained':
      return 'srq-ep-drained';
    default:
      return `${event.type}${event.reason === undefined ? '' : `{${event.reason}}`}`;
  }
}

/**
 * The next event on `evd`, within `budgetMs`. With `types`, it must be one of them; anything
 * else (or nothing) fails with a message naming what was expected.
 */
export async function nextEvent<T extends DatEventType>(evd: EventDispatcher, budgetMs: number, ...types: T[]): Promise<EventOf<T>> {
  const expected = types.length === 0 ? 'an event' : `a ${types.join(' or ')} event`;
  let event: DatEvent;
  try {
    event = await evd.wait({ timeoutMs: budgetMs });
  } catch (error) {
    if (isDatError(error, DatStatus.TIMEOUT_EXPIRED)) throw new Error(`expected ${expected} within ${budgetMs} ms; none arrived`);
    throw error;
  }
  if (types.length > 0 && !(types as DatEventType[]).includes(event.type)) {
    throw new Error(`expected ${expected}, got ${summarize(event)}`);
  }
  return event as EventOf<T>;
}

/** Nothing arrives on `evd` for `ms` (a bounded negative check). */
export async function expectNoEvent(evd: EventDispatcher, ms: number, what: string): Promise<void> {
  try {
    const event = await evd.wait({ timeoutMs: ms });
    throw new Error(`expected no event (${what}) within ${ms} ms, got ${summarize(event)}`);
  } catch (error) {
    if (!isDatError(error, DatStatus.TIMEOUT_EXPIRED)) throw error;
  }
}

export interface CompletionExpectation {
  readonly cookie?: unknown;
  readonly op?: DtoOp;
  readonly status?: DtoStatus;
  readonly transferredLength?: number;
  readonly reason?: DatStatus;
}

/** The next DTO completion on `evd`, checked against `expected`. */
export async function nextCompletion(evd: EventDispatcher, budgetMs: number, expected: CompletionExpectation = {}): Promise<DtoCompletionEvent> {
  const event = await nextEvent(evd, budgetMs, 'dto-completion');
  const picked: Record<string, unknown> = {};
  for (const key of Object.keys(expected) as (keyof CompletionExpectation)[]) picked[key] = event[key];
  expect(picked, `completion ${summarize(event)}`).toEqual(expected);
  return event;
}

/**
 * Run `action` (sync, or returning a promise) and check it fails with a DatError of
 * `status` whose `argument` — or, failing that, message — names `argument`.
 */
export async function expectDatError(action: () => unknown, status: DatStatus, argument: string): Promise<DatError> {
  let error: unknown;
  try {
    await action();
  } catch (e) {
    error = e;
  }
  if (error === undefined) throw new Error(`expected a DatError ${status} naming '${argument}', but the call succeeded`);
  if (!isDatError(error)) throw new Error(`expected a DatError ${status} naming '${argument}', got ${String(error)}`, { cause: error });
  expect(error.status, error.message).toBe(status);
  const names = error.argument === argument || error.message.includes(argument);
  expect(names, `the error should name '${argument}': argument=${String(error.argument)}, message=${error.message}`).toBe(true);
  return error;
}

/** Like `expectDatError`, for calls that must throw synchronously (posting calls never return a rejected promise). */
export function expectThrowsSync(action: () => unknown, status: DatStatus): DatError {
  try {
    action();
  } catch (e) {
    if (!isDatError(e)) throw new Error(`expected a DatError ${status}, got ${String(e)}`, { cause: e });
    expect(e.status, e.message).toBe(status);
    return e;
  }
  throw new Error(`expected a DatError ${status}, but the call succeeded`);
}

export function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  randomFillSync(bytes);
  return bytes;
}

/** Index of the first byte where `a` and `b` differ, or -1 (also -1 only when lengths match). */
export function firstDifference(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}

/** Assert equal bytes with a message that points at the first difference (no 1 MiB diffs). */
export function expectSameBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  const at = firstDifference(actual, expected);
  expect(at, `${what}: first difference at byte ${at} (lengths ${actual.length} / ${expected.length})`).toBe(-1);
}

export function bytesToArray(bytes: Uint8Array | undefined): number[] | undefined {
  return bytes === undefined ? undefined : Array.from(bytes);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
