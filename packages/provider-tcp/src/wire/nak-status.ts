/**
 * The reason codes a NAK carries in its `status` field, and their mapping to the DTO completion
 * the initiator raises (status + reason) and from the DatStatus the target's checks produce.
 */
import { DatStatus, DtoStatus } from '@dapl/core';

export const NakStatus = {
  /** Bad RMR context, or the access is out of the bound region. */
  REMOTE_ACCESS_PROTECTION: 1,
  /** The RMR does not grant the access (read / write rights). */
  REMOTE_ACCESS_PRIVILEGES: 2,
  /** The posted receive was too small for the send. */
  REMOTE_LENGTH: 3,
  /** Any other failure at the target. */
  REMOTE_OPERATION: 4,
} as const;

export type NakStatus = (typeof NakStatus)[keyof typeof NakStatus];

export function isNakStatus(value: number): value is NakStatus {
  return Number.isInteger(value) && value >= NakStatus.REMOTE_ACCESS_PROTECTION && value <= NakStatus.REMOTE_OPERATION;
}

/** What the initiator's DTO completion reports for a NAK. */
export interface NakCompletion {
  readonly status: DtoStatus;
  readonly reason: DatStatus | undefined;
}

const COMPLETIONS: Readonly<Record<NakStatus, NakCompletion>> = {
  [NakStatus.REMOTE_ACCESS_PROTECTION]: { status: DtoStatus.REMOTE_ACCESS, reason: DatStatus.PROTECTION_VIOLATION },
  [NakStatus.REMOTE_ACCESS_PRIVILEGES]: { status: DtoStatus.REMOTE_ACCESS, reason: DatStatus.PRIVILEGES_VIOLATION },
  [NakStatus.REMOTE_LENGTH]: { status: DtoStatus.REMOTE_RESPONDER, reason: DatStatus.LENGTH_ERROR },
  [NakStatus.REMOTE_OPERATION]: { status: DtoStatus.REMOTE_RESPONDER, reason: undefined },
};

/** The completion status and reason for a NAK code (an unknown code counts as REMOTE_OPERATION). */
export function nakStatusToCompletion(code: number): NakCompletion {
  return isNakStatus(code) ? COMPLETIONS[code] : COMPLETIONS[NakStatus.REMOTE_OPERATION];
}

/** The NAK code for a failure the target found, given as the DatStatus of its check. */
export function nakStatusFromDatStatus(reason: DatStatus): NakStatus {
  switch (reason) {
    case DatStatus.PROTECTION_VIOLATION:
      return NakStatus.REMOTE_ACCESS_PROTECTION;
    case DatStatus.PRIVILEGES_VIOLATION:
      return NakStatus.REMOTE_ACCESS_PRIVILEGES;
    case DatStatus.LENGTH_ERROR:
      return NakStatus.REMOTE_LENGTH;
    default:
      return NakStatus.REMOTE_OPERATION;
  }
}
