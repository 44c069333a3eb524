import type { DatEvent, EventDispatcher } from '@dapl/core';

/** What a device does with one event of its EVDs. */
export type EventHandler = (event: DatEvent) => void;

/**
 * A device's `poll()` over its receive and request EVDs: one look at the transport (a dequeue from
 * an empty queue polls the provider where `dequeuePollUs` is above 0), then the events that look
 * queued on either EVD, taken while their queues hold some. A loop that ran until `dequeue()`
 * found nothing would poll the provider again at its end, once per EVD for every message.
 */
export function pollEvds(recv: EventDispatcher, request: EventDispatcher, onRecv: EventHandler, onRequest: EventHandler): void {
  if (recv.freed || request.freed) return;
  if (recv.size === 0) {
    const event = recv.dequeue();
    if (event !== undefined) onRecv(event);
  }
  // A handler may end the job's connections (a failed link at close): freed queues are left alone.
  while (recv.size > 0 && !recv.freed) onRecv(recv.dequeue()!);
  while (request.size > 0 && !request.freed) onRequest(request.dequeue()!);
}

/** `handler` for every event `evd` holds: the EVD's notification callback. */
export function drainWith(handler: EventHandler): (evd: EventDispatcher) => void {
  return (evd) => {
    for (let event = evd.dequeue(); event !== undefined; event = evd.dequeue()) handler(event);
  };
}
