import { DatError } from '../../dat/errors.js';
import { DatStatus } from '../../dat/status.js';

/**
 * The wiring protocol of `Connections`, as pure codecs: what a rank publishes in the KVS, and
 * the private data of its connection requests.
 *
 * Private data (7 bytes):
 * ```
 *  0      1        2     3..6
 *  0xDA   version  kind  rank (u32, big-endian)
 * ```
 * kind 1 `connect`: "accept me, I am `rank`" (from the higher rank of a pair);
 * kind 2 `reverse`: "please connect to me, I am `rank`" (from the lower rank; always rejected).
 */
export const WIRING_MAGIC = 0xda;
export const WIRING_VERSION = 1;
export const WIRING_PRIVATE_DATA_BYTES = 7;

export type WiringKind = 'connect' | 'reverse';

export interface WiringRequest {
  readonly kind: WiringKind;
  readonly rank: number;
}

const KIND_CODES: Readonly<Record<WiringKind, number>> = { connect: 1, reverse: 2 };
const MAX_RANK = 0xffff_ffff;

export function encodeWiringRequest(request: WiringRequest): Uint8Array {
  const { kind, rank } = request;
  if (!Object.hasOwn(KIND_CODES, kind)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `kind must be 'connect' or 'reverse', got ${JSON.stringify(kind)}`, { argument: 'kind' });
  }
  if (!Number.isSafeInteger(rank) || rank < 0 || rank > MAX_RANK) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `rank must be an integer in [0, ${MAX_RANK}], got ${String(rank)}`, { argument: 'rank' });
  }
  // Bytewise: a DataView would make V8 move the 7 bytes to a backing store of their own, which at
  // thousands of connections was most of the wiring's time and garbage.
  const bytes = new Uint8Array(WIRING_PRIVATE_DATA_BYTES);
  bytes[0] = WIRING_MAGIC;
  bytes[1] = WIRING_VERSION;
  bytes[2] = KIND_CODES[kind];
  bytes[3] = rank >>> 24;
  bytes[4] = (rank >>> 16) & 0xff;
  bytes[5] = (rank >>> 8) & 0xff;
  bytes[6] = rank & 0xff;
  return bytes;
}

/** The request carried by `privateData`, or a reason why it is not one (never throws). */
export function decodeWiringRequest(privateData: Uint8Array): WiringRequest | string {
  if (privateData.length !== WIRING_PRIVATE_DATA_BYTES) return `private data is ${privateData.length} bytes; a wiring request is ${WIRING_PRIVATE_DATA_BYTES}`;
  if (privateData[0] !== WIRING_MAGIC) return `private data starts with 0x${privateData[0].toString(16)}, not the wiring magic 0xda`;
  if (privateData[1] !== WIRING_VERSION) return `wiring protocol version ${privateData[1]}; this rank speaks ${WIRING_VERSION}`;
  const code = privateData[2];
  const kind = code === KIND_CODES.connect ? 'connect' : code === KIND_CODES.reverse ? 'reverse' : undefined;
  if (kind === undefined) return `unknown wiring request kind ${code}`;
  const rank = privateData[3] * 0x100_0000 + ((privateData[4] << 16) | (privateData[5] << 8) | privateData[6]);
  return { kind, rank };
}

/** Where a rank listens: its IA address and the conn-qual of its PSP. */
export interface ListenAddress {
  readonly address: string;
  readonly connQual: number;
}

/**
 * KVS value `<address>#<connQual>`. Addresses may contain `:` (host:port, IPv6) and even `#`:
 * the conn-qual is after the LAST `#`. KVS values cannot hold whitespace, so neither may the address.
 */
export function encodeListenAddress(listen: ListenAddress): string {
  const { address, connQual } = listen;
  if (typeof address !== 'string' || address.length === 0 || /\s/.test(address)) {
    throw new DatError(DatStatus.INVALID_ADDRESS, `the IA address must be non-empty and contain no whitespace to go in the KVS, got ${JSON.stringify(address)}`, {
      argument: 'address',
    });
  }
  if (!Number.isSafeInteger(connQual) || connQual < 0) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `connQual must be an integer >= 0, got ${String(connQual)}`, { argument: 'connQual' });
  }
  return `${address}#${connQual}`;
}

/** Parse a published `<address>#<connQual>`; INVALID_PARAMETER naming `key` when it is malformed. */
export function decodeListenAddress(value: string, key: string): ListenAddress {
  const at = value.lastIndexOf('#');
  const connQualText = at < 0 ? '' : value.slice(at + 1);
  if (at <= 0 || !/^\d{1,15}$/.test(connQualText)) {
    throw new DatError(DatStatus.INVALID_PARAMETER, `KVS key "${key}" holds ${JSON.stringify(value)}; expected <address>#<connQual>`, { argument: key });
  }
  return { address: value.slice(0, at), connQual: Number(connQualText) };
}
