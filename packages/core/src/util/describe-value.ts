/**
 * A short, safe rendering of a bad argument for an error message: strings quoted and cut, typed
 * arrays and arrays with their length, other objects by class. One wording for every layer.
 */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (value === null) return 'null';
  if (typeof value !== 'object') return String(value);
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${(value as { length?: number }).length ?? value.byteLength})`;
  if (Array.isArray(value)) return `array(${value.length})`;
  return (value as object).constructor?.name ?? 'object';
}
