import { it } from 'vitest';
import type { EventDispatcher } from '../../dat/evd.js';
import type { DatEventType, DtoCompletionEvent } from '../../dat/events.js';
import type { InterfaceAdapter } from '../../dat/ia.js';
import type { DtoCapability, IaOptions } from '../../dat/provider.js';
import type { ResolvedFixture } from './fixture.js';
import { nextCompletion, nextEvent, type CompletionExpectation, type EventOf } from './helpers.js';

/** What a test may need beyond the required fixture members: an optional member or a DTO capability. */
export type Need = 'fixture.crash' | 'fixture.openForeignIa' | DtoCapability;

export type TestBody = (h: Harness) => Promise<void>;

/**
 * The per-suite state every test shares: the fixture, the IAs opened by the running test
 * (closed in afterEach, so a failing test leaks nothing), and test registration that
 * skips — or, in strict mode, fails — a test whose needs the fixture does not meet.
 */
export class Harness {
  private readonly opened: InterfaceAdapter[] = [];

  constructor(
    readonly fixture: ResolvedFixture,
    private readonly strict: boolean,
  ) {}

  get waitMs(): number {
    return this.fixture.waitMs;
  }

  /** Room for a few full waits, so our own "no event within N ms" message wins over vitest's timeout. */
  get testTimeoutMs(): number {
    return Math.max(10_000, this.fixture.waitMs * 3);
  }

  /** The next event on `evd` within the fixture's budget; with `types`, it must be one of them. */
  nextEvent<T extends DatEventType>(evd: EventDispatcher, ...types: T[]): Promise<EventOf<T>> {
    return nextEvent(evd, this.fixture.waitMs, ...types);
  }

  nextCompletion(evd: EventDispatcher, expected?: CompletionExpectation): Promise<DtoCompletionEvent> {
    return nextCompletion(evd, this.fixture.waitMs, expected);
  }

  declares(capability: DtoCapability): boolean {
    return this.fixture.provider.capabilities.dto.includes(capability);
  }

  track<T extends InterfaceAdapter>(ia: T): T {
    this.opened.push(ia);
    return ia;
  }

  async openIa(options?: IaOptions): Promise<InterfaceAdapter> {
    return this.track(await this.fixture.openIa(options));
  }

  async openPair(options?: IaOptions): Promise<[InterfaceAdapter, InterfaceAdapter]> {
    const [a, b] = await this.fixture.openPair(options);
    return [this.track(a), this.track(b)];
  }

  async openForeignIa(): Promise<InterfaceAdapter> {
    const open = this.fixture.openForeignIa;
    if (open === undefined) throw new Error('missing capability: fixture.openForeignIa');
    return this.track(await open());
  }

  async crash(ia: InterfaceAdapter): Promise<void> {
    const crash = this.fixture.crash;
    if (crash === undefined) throw new Error('missing capability: fixture.crash');
    await crash(ia);
  }

  /** Close every IA the running test opened; report the first failure after trying them all. */
  async closeAll(): Promise<void> {
    const ias = this.opened.splice(0);
    let first: unknown;
    for (const ia of ias.reverse()) {
      try {
        await ia.close();
      } catch (error) {
        first ??= error;
      }
    }
    if (first !== undefined) throw first;
  }

  missing(needs: readonly Need[]): Need[] {
    return needs.filter((n) => {
      if (n === 'fixture.crash') return this.fixture.crash === undefined;
      if (n === 'fixture.openForeignIa') return this.fixture.openForeignIa === undefined;
      return !this.declares(n);
    });
  }

  /** Register a test; one whose needs are unmet is skipped with them in its title, or fails in strict mode. */
  test(title: string, needs: readonly Need[], body: TestBody, timeoutMs = this.testTimeoutMs): void {
    const missing = this.missing(needs);
    if (missing.length === 0) {
      it(title, { timeout: timeoutMs }, () => body(this));
      return;
    }
    const label = missing.map(describeNeed).join(', ');
    if (this.strict) {
      it(title, () => {
        throw new Error(`missing capability: ${label}`);
      });
    } else {
      it.skip(`${title} [needs ${label}]`, () => body(this));
    }
  }
}

function describeNeed(need: Need): string {
  return need.startsWith('fixture.') ? need : `capability ${need}`;
}
