/** Reading fields of PMI-1 messages; a missing or non-numeric field is `undefined`, never a throw. */
import type { PmiMessage } from './wire.js';

const INTEGER = /^-?\d{1,15}$/;

export function intField(message: PmiMessage, name: string): number | undefined {
  const text = message.fields.get(name);
  return text !== undefined && INTEGER.test(text) ? Number(text) : undefined;
}

export function textField(message: PmiMessage, name: string): string | undefined {
  return message.fields.get(name);
}

/** The message as it looked on the wire, for error messages (shortened). */
export function pmiMessageText(message: PmiMessage): string {
  let text = `cmd=${message.cmd}`;
  for (const [key, value] of message.fields) text += ` ${key}=${value}`;
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
