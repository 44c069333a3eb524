import { Op } from '../coll/op.js';
import { requireTag } from './check.js';
import type { Comm } from './comm.js';
import { ErrorClass, MpiError, describeValue } from './errors.js';
import { Group } from './group.js';
import { InterComm } from './inter-comm.js';
import type { MpiState } from './mpi-state.js';

/** What the local leader tells its group: OK, or which check failed (every member then throws it). */
const enum Outcome {
  OK = 0,
  BAD_PEER_COMM = 1,
  BAD_REMOTE_LEADER = 2,
  OVERLAP = 3,
}

/**
 * MPI_Intercomm_create, collective over `comm` (the local group) and, through the two leaders, the
 * remote group. Every member checks `localLeader` and `tag`; the leader checks `peerComm` and
 * `remoteLeader`, meets the remote leader on `peerComm` with `tag` (MPI's rule), and tells its group
 * the outcome: so a bad argument is an error on every member of the group, none is left waiting,
 * and the job goes on (a leader whose own arguments are bad cannot reach the remote leader: the
 * remote group then waits for it, as in every MPI). The context id is the largest unused id of any
 * member of either group; everyone moves past the ids the intercommunicator takes.
 */
export async function createIntercomm(state: MpiState, comm: Comm, localLeader: number, peerComm: Comm | null, remoteLeader: number, tag: number): Promise<InterComm> {
  if (comm.isInter) throw new MpiError(ErrorClass.ERR_COMM, `${comm.name} is an intercommunicator: intercommCreate is called on an intracommunicator`, { argument: 'comm' });
  if (typeof localLeader !== 'number' || !Number.isInteger(localLeader) || localLeader < 0 || localLeader >= comm.size) {
    throw new MpiError(ErrorClass.ERR_RANK, `localLeader must be a rank of ${comm.name} in [0, ${comm.size - 1}], got ${describeValue(localLeader)}`, { argument: 'localLeader' });
  }
  requireTag(tag, 'tag');
  const localMax = new Int32Array(1);
  await comm.allreduce(Int32Array.of(state.nextContext), localMax, Op.MAX);
  // [outcome, context, remote size], then the remote group's world ranks.
  const header = new Int32Array(3);
  let remoteRanks = new Int32Array(0);
  if (comm.rank === localLeader) {
    header[0] = checkLeader(comm, peerComm, remoteLeader);
    if (header[0] === Outcome.OK) {
      const peer = peerComm!;
      const theirs = new Int32Array(2);
      await peer.sendrecv(Int32Array.of(localMax[0], comm.size), remoteLeader, tag, theirs, remoteLeader, tag);
      remoteRanks = new Int32Array(theirs[1]);
      await peer.sendrecv(Int32Array.from(comm.group.worldRanks), remoteLeader, tag, remoteRanks, remoteLeader, tag);
      const local = new Set(comm.group.worldRanks);
      header[0] = remoteRanks.some((w) => local.has(w)) ? Outcome.OVERLAP : Outcome.OK;
      header[1] = Math.max(localMax[0], theirs[0]);
      header[2] = theirs[1];
    }
  }
  await comm.bcast(header, localLeader);
  failOn(header[0], comm);
  if (comm.rank !== localLeader) remoteRanks = new Int32Array(header[2]);
  await comm.bcast(remoteRanks, localLeader);
  const context = header[1];
  state.nextContext = Math.max(state.nextContext, context + InterComm.CONTEXTS);
  const me = comm.group.myWorldRank;
  return new InterComm(state, comm.group, new Group(Array.from(remoteRanks), me), context, `${comm.name}.inter`);
}

function checkLeader(comm: Comm, peerComm: Comm | null, remoteLeader: number): Outcome {
  if (peerComm === null || typeof peerComm !== 'object' || typeof peerComm.sendrecv !== 'function' || peerComm.isInter || peerComm.freed) return Outcome.BAD_PEER_COMM;
  if (typeof remoteLeader !== 'number' || !Number.isInteger(remoteLeader) || remoteLeader < 0 || remoteLeader >= peerComm.size) return Outcome.BAD_REMOTE_LEADER;
  // The remote leader must be outside this group (the groups are disjoint).
  if (comm.group.worldRanks.includes(peerComm.group.worldRanks[remoteLeader])) return Outcome.BAD_REMOTE_LEADER;
  return Outcome.OK;
}

function failOn(outcome: number, comm: Comm): void {
  switch (outcome) {
    case Outcome.OK:
      return;
    case Outcome.BAD_PEER_COMM:
      throw new MpiError(ErrorClass.ERR_COMM, `peerComm at the local leader of ${comm.name} must be an active intracommunicator holding both leaders`, { argument: 'peerComm' });
    case Outcome.BAD_REMOTE_LEADER:
      throw new MpiError(ErrorClass.ERR_RANK, `remoteLeader at the local leader of ${comm.name} must be a rank of peerComm outside the local group`, { argument: 'remoteLeader' });
    default:
      throw new MpiError(ErrorClass.ERR_GROUP, `the local and remote groups of intercommCreate on ${comm.name} overlap: they must be disjoint`, { argument: 'remoteLeader' });
  }
}
