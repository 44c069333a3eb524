import { DatError } from '../dat/errors.js';
import { DatStatus } from '../dat/status.js';

/** The shared answer for an operation a provider does not offer (libfabric's `fi_no_*` stubs). */
export function notSupported(op: string, capability?: string): DatError {
  const needs = capability === undefined ? '' : ` (it needs the '${capability}' capability, which this IA does not have)`;
  return new DatError(DatStatus.NOT_IMPLEMENTED, `${op} is not supported by this provider${needs}`, { argument: op });
}
