import { describe, expect, it } from 'vitest';
import { isDatError } from '../src/dat/errors.js';
import { DatStatus } from '../src/dat/status.js';
import { formatProcessMapping, localRanksFromMapping, nodeOfEachRank, parseProcessMapping } from '../src/runtime/pmi/process-mapping.js';
import { formatPmi2Command, formatPmi2Frame, isPmi2WireError, parsePmi2Payload, Pmi2FrameReader, PMI2_MAX_VALUE_BYTES, type Pmi2Frame, type Pmi2WireError } from '../src/runtime/pmi/pmi2-wire.js';
import { isPmiWireError, type PmiMessage } from '../src/runtime/pmi/wire.js';
import { seededRandom } from '../src/testing/seeded-random.js';

/** Rank 0's requests under `srun --mpi=pmi2`, byte for byte as notes/multi-host.md recorded them. */
const SLURM_REQUESTS = [
  '51    cmd=fullinit;pmijobid=4.0;pmirank=0;threaded=FALSE;',
  '14    cmd=job-getid;',
  '44    cmd=info-getjobattr;key=PMI_process_mapping;',
  '28    cmd=kvs-put;key=k0;value=v0;',
  '14    cmd=kvs-fence;',
  '38    cmd=kvs-get;jobid=4.0;srcid=-1;key=k0;',
  '13    cmd=finalize;',
];
/** Slurm's replies (left-justified lengths). */
const SLURM_REPLIES = [
  '114   cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;size=2;appnum=-1;debugged=FALSE;pmiverbose=FALSE;',
  '38    cmd=job-getid-response;rc=0;jobid=4.0;',
  '68    cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,1,2));',
  '26    cmd=kvs-put-response;rc=0;',
  '28    cmd=kvs-fence-response;rc=0;',
  '46    cmd=kvs-get-response;rc=0;found=TRUE;value=v0;',
  '27    cmd=finalize-response;rc=0;',
];
/** The same replies as Hydra frames them: right-justified lengths, rc last. */
const HYDRA_REPLIES = SLURM_REPLIES.map((frame) => {
  const payload = frame.slice(6).replace(/rc=0;(.*)$/, '$1rc=0;');
  return `${String(payload.length).padStart(6)}${payload}`;
});

function payloads(frames: readonly string[]): string[] {
  return frames.map((f) => f.slice(6));
}

function readAll(text: string, chunkSizes: () => number): Pmi2Frame[] {
  const reader = new Pmi2FrameReader();
  const bytes = Buffer.from(text, 'utf8');
  const out: Pmi2Frame[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.min(chunkSizes(), bytes.length - at);
    out.push(...reader.push(bytes.subarray(at, at + n)));
    at += n;
  }
  expect(reader.end()).toBeUndefined();
  return out;
}

function message(result: PmiMessage | Pmi2WireError): PmiMessage {
  if (isPmiWireError(result)) throw new Error(`unexpected wire error: ${result.message}`);
  return result;
}

function problemOf(frames: Pmi2Frame[]): string {
  const last = frames.at(-1);
  if (!isPmi2WireError(last)) throw new Error(`expected a Pmi2WireError, got ${JSON.stringify(last)}`);
  return last.problem;
}

describe('PMI-2 wire: frames', () => {
  it("formats the client's commands byte for byte as Slurm's own client does", () => {
    const ours = [
      formatPmi2Command('fullinit', { pmijobid: '4.0', pmirank: 0, threaded: false }),
      formatPmi2Command('job-getid'),
      formatPmi2Command('info-getjobattr', { key: 'PMI_process_mapping' }),
      formatPmi2Command('kvs-put', { key: 'k0', value: 'v0' }),
      formatPmi2Command('kvs-fence'),
      formatPmi2Command('kvs-get', { jobid: '4.0', srcid: -1, key: 'k0' }),
      formatPmi2Command('finalize'),
    ];
    expect(ours).toEqual(SLURM_REQUESTS);
    expect(formatPmi2Command('finalize', {}, 'right')).toBe('    13cmd=finalize;');
  });

  for (const [style, replies] of [
    ['Slurm (left-justified)', SLURM_REPLIES],
    ['Hydra (right-justified)', HYDRA_REPLIES],
  ] as const) {
    it(`reads ${style} replies byte by byte and in random chunks, and parses every field`, () => {
      const stream = replies.join('');
      expect(readAll(stream, () => 1)).toEqual(payloads(replies));
      for (let seed = 1; seed <= 40; seed++) {
        const random = seededRandom(seed);
        expect(readAll(stream, () => 1 + Math.floor(random() * 90)), `seed ${seed}`).toEqual(payloads(replies));
      }
      const full = message(parsePmi2Payload(replies[0].slice(6)));
      expect(full.cmd).toBe('fullinit-response');
      expect(Object.fromEntries(full.fields)).toMatchObject({ rc: '0', rank: '0', size: '2', appnum: '-1' });
      const map = message(parsePmi2Payload(replies[2].slice(6)));
      expect(map.fields.get('value')).toBe('(vector,(0,1,2))');
    });
  }

  it('keeps "=" inside a value, and reads a frame without its last ";"', () => {
    const m = message(parsePmi2Payload('cmd=kvs-get-response;rc=0;found=TRUE;value=a=b=c'));
    expect(m.fields.get('value')).toBe('a=b=c');
  });

  it('reads multi-byte UTF-8 split across chunks (lengths count bytes)', () => {
    const frame = formatPmi2Frame('kvs-get-response', { rc: 0, found: true, value: 'héllo→' });
    expect(readAll(frame, () => 1)).toEqual([frame.slice(6)]);
    expect(frame.startsWith(`${Buffer.byteLength(frame.slice(6))}`)).toBe(true);
  });
});

describe('PMI-2 wire: bad input is a typed error', () => {
  const cases: [string, string, string][] = [
    ['a length prefix that is not a number', 'abc   cmd=finalize;', 'bad-length'],
    ['a length of 0', '0     ', 'bad-length'],
    ['a length with a sign', '-13   cmd=finalize;', 'bad-length'],
    ['a frame longer than the maximum', '999999', 'frame-too-long'],
  ];
  for (const [what, input, problem] of cases) {
    it(`${what} → ${problem}`, () => {
      const reader = new Pmi2FrameReader();
      const frames = reader.push(Buffer.from(input));
      expect(problemOf(frames)).toBe(problem);
      expect(reader.failed).toBe(true);
      expect(reader.push(Buffer.from('13    cmd=finalize;'))).toEqual([]);
    });
  }

  it('invalid UTF-8 → not-utf8', () => {
    const reader = new Pmi2FrameReader();
    expect(problemOf(reader.push(Buffer.from([0x32, 0x20, 0x20, 0x20, 0x20, 0x20, 0xc3, 0x28])))).toBe('not-utf8');
  });

  it('a stream that ends inside a frame (length or body) → truncated', () => {
    const inBody = new Pmi2FrameReader();
    expect(inBody.push(Buffer.from('27    cmd=finalize-resp'))).toEqual([]);
    expect(inBody.end()?.problem).toBe('truncated');
    const inLength = new Pmi2FrameReader();
    inLength.push(Buffer.from('27 '));
    expect(inLength.end()?.problem).toBe('truncated');
  });

  const payloadCases: [string, string, string][] = [
    ['no cmd first', 'rc=0;cmd=kvs-put-response;', 'malformed'],
    ['a field without "="', 'cmd=kvs-put-response;rc;', 'malformed'],
    ['an empty command', '', 'malformed'],
    ['a field twice', 'cmd=kvs-put-response;rc=0;rc=1;', 'malformed'],
    ['a control character', 'cmd=kvs-put-response;rc=0\u0000;', 'malformed'],
    ['an unknown command', 'cmd=spawn-response;rc=0;', 'unknown-command'],
    ['a value over PMI2_MAX_VALLEN', `cmd=kvs-get-response;rc=0;found=TRUE;value=${'x'.repeat(PMI2_MAX_VALUE_BYTES + 1)};`, 'value-too-long'],
  ];
  for (const [what, payload, problem] of payloadCases) {
    it(`a reply with ${what} → ${problem}`, () => {
      const result = parsePmi2Payload(payload);
      expect(isPmi2WireError(result) && result.problem).toBe(problem);
    });
  }

  it('our own bad commands are DatErrors naming the field', () => {
    const thrown = (f: () => unknown): { status: string; argument: string | undefined } => {
      try {
        f();
      } catch (error) {
        if (isDatError(error)) return { status: error.status, argument: error.argument };
      }
      throw new Error('expected a DatError');
    };
    expect(thrown(() => formatPmi2Command('spawn'))).toEqual({ status: DatStatus.INVALID_PARAMETER, argument: 'cmd' });
    expect(thrown(() => formatPmi2Command('kvs-put', { key: 'k', value: 'a;b' }))).toEqual({ status: DatStatus.INVALID_PARAMETER, argument: 'fields.value' });
    expect(thrown(() => formatPmi2Command('kvs-put', { 'k=1': 'v' }))).toEqual({ status: DatStatus.INVALID_PARAMETER, argument: 'fields.k=1' });
    expect(thrown(() => formatPmi2Command('kvs-put', { key: 'k', value: 'x'.repeat(PMI2_MAX_VALUE_BYTES + 1) }))).toEqual({ status: DatStatus.LENGTH_ERROR, argument: 'fields.value' });
    expect(thrown(() => formatPmi2Command('kvs-put', { key: 'k', cmd: 'x' }))).toEqual({ status: DatStatus.INVALID_PARAMETER, argument: 'fields.cmd' });
  });
});

describe('PMI_process_mapping', () => {
  it('reads blocks as Slurm and Hydra write them, and which ranks share a node', () => {
    expect(nodeOfEachRank(parseProcessMapping('(vector,(0,3,1))'), 3)).toEqual([0, 1, 2]);
    expect(nodeOfEachRank(parseProcessMapping('(vector,(0,2,2))'), 4)).toEqual([0, 0, 1, 1]);
    // A cyclic mapping is written once and used again until every rank has a node.
    expect(nodeOfEachRank(parseProcessMapping('(vector,(0,2,1))'), 5)).toEqual([0, 1, 0, 1, 0]);
    expect(nodeOfEachRank(parseProcessMapping(' (vector, (0,1,3), (1,2,1)) '), 5)).toEqual([0, 0, 0, 1, 2]);
    expect(localRanksFromMapping('(vector,(0,2,2))', 4, 3)).toEqual([2, 3]);
    expect(localRanksFromMapping('(vector,(0,1,2))', 2, 0)).toEqual([0, 1]);
    expect(formatProcessMapping([2, 2, 1])).toBe('(vector,(0,2,2),(2,1,1))');
    expect(nodeOfEachRank(parseProcessMapping(formatProcessMapping([2, 2, 1])), 5)).toEqual([0, 0, 1, 1, 2]);
  });

  for (const bad of ['', 'vector,(0,1,2)', '(vector)', '(vector,(0,1))', '(vector,(0,a,1))', '(vector,(0,0,0))', '(vector,(0,1,1)x)']) {
    it(`refuses ${JSON.stringify(bad)} naming PMI_process_mapping`, () => {
      let error: unknown;
      try {
        parseProcessMapping(bad);
      } catch (e) {
        error = e;
      }
      expect(isDatError(error, DatStatus.INVALID_PARAMETER) && error.argument).toBe('PMI_process_mapping');
    });
  }
});
