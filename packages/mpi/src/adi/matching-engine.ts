// TEMPORARY stand-in (branch mpi-matching replaces this file): linear scans, same API.
import { ANY_SOURCE, ANY_TAG } from '../api/constants.js';

export interface PostedHandle { readonly id: number }
export type PostResult<M> = { readonly message: M; readonly handle?: undefined } | { readonly message?: undefined; readonly handle: PostedHandle };

interface Posted<R> { context: number; source: number; tag: number; receive: R; handle: PostedHandle }
interface Unexpected<M> { context: number; source: number; tag: number; message: M }

const accepts = (s: number, t: number, source: number, tag: number) => (s === ANY_SOURCE || s === source) && (t === ANY_TAG || t === tag);

export class MatchingEngine<R, M> {
  #posted: Posted<R>[] = [];
  #unexpected: Unexpected<M>[] = [];
  #ids = 0;
  get postedCount(): number { return this.#posted.length; }
  get unexpectedCount(): number { return this.#unexpected.length; }
  post(context: number, source: number, tag: number, receive: R): PostResult<M> {
    const i = this.#unexpected.findIndex((u) => u.context === context && accepts(source, tag, u.source, u.tag));
    if (i >= 0) return { message: this.#unexpected.splice(i, 1)[0].message };
    const handle = { id: ++this.#ids };
    this.#posted.push({ context, source, tag, receive, handle });
    return { handle };
  }
  arrive(context: number, source: number, tag: number, message: M): R | undefined {
    const i = this.#posted.findIndex((p) => p.context === context && accepts(p.source, p.tag, source, tag));
    if (i >= 0) return this.#posted.splice(i, 1)[0].receive;
    this.#unexpected.push({ context, source, tag, message });
    return undefined;
  }
  probe(context: number, source: number, tag: number): { message: M; source: number; tag: number } | undefined {
    const u = this.#unexpected.find((x) => x.context === context && accepts(source, tag, x.source, x.tag));
    return u === undefined ? undefined : { message: u.message, source: u.source, tag: u.tag };
  }
  cancel(handle: PostedHandle): boolean {
    const i = this.#posted.findIndex((p) => p.handle === handle);
    if (i < 0) return false;
    this.#posted.splice(i, 1);
    return true;
  }
  dropContext(context: number): { receives: R[]; messages: M[] } {
    const receives = this.#posted.filter((p) => p.context === context).map((p) => p.receive);
    const messages = this.#unexpected.filter((u) => u.context === context).map((u) => u.message);
    this.#posted = this.#posted.filter((p) => p.context !== context);
    this.#unexpected = this.#unexpected.filter((u) => u.context !== context);
    return { receives, messages };
  }
}
