const resolved = Promise.resolve();

/**
 * Run `task` as a microtask. Node's `queueMicrotask` wraps every callback in an AsyncResource
 * (an async id, a bound function, before/after hooks), which costs microseconds per message on
 * a data path; a reaction on a settled promise costs one small record. Tasks must not throw.
 */
export function defer(task: () => void): void {
  void resolved.then(task);
}
