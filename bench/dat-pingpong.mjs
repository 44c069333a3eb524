#!/usr/bin/env node
// DAT-level ping-pong latency and streaming bandwidth of the tcp provider between two
// processes, beside raw Node sockets doing the same exchange (length-prefixed messages copied
// into a destination buffer, echoed whole), in the same run. DAT sends are posted with
// suppressCompletion (DAT_COMPLETION_SUPPRESS_FLAG), as MPI libraries over uDAPL do: the reply
// tells the sender its message arrived, so a message costs one completion event, not two.
// Each size alternates DAT and raw
// rounds; figures are medians over rounds; ratio = DAT / raw for latency, DAT / raw for bandwidth.
//
//   node bench/dat-pingpong.mjs [--max-size BYTES] [--rounds N] [--window N] [--quick]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MemAccess } from '@dapl/core';
import { tcpProvider } from '@dapl/provider-tcp';

const MAX = 4 * 1024 * 1024;
/** Success is learned from the reply; errors would still be reported. */
const QUIET = { suppressCompletion: true };
const HELP = `usage: node bench/dat-pingpong.mjs [options]

DAT ping-pong latency and streaming bandwidth (tcp provider, two processes) beside raw Node
sockets doing the same exchange, in OSU format, with the DAT/raw ratio per size.

  --max-size BYTES  largest message (default 4194304)
  --rounds N        alternating DAT/raw rounds per size; medians are reported (default 5)
  --window N        messages in flight for bandwidth, as osu_bw (default 64)
  --min-size BYTES  smallest message (default 1)
  --only lat|bw     run only the latency or only the bandwidth part
  --quick           fewer iterations (a smoke run)
  -h, --help        this text`;

// ---------------------------------------------------------------------------------------------
// The echo process (rank 1).
// ---------------------------------------------------------------------------------------------

async function echoMain() {
  const ia = await tcpProvider.openIa();
  const datPorts = [await serveDat(ia, 'echo-all'), await serveDat(ia, 'echo-empty')];
  const rawPorts = [await serveRaw('echo-all'), await serveRaw('echo-empty')];
  process.stdout.write(`${JSON.stringify({ address: ia.address, datPorts, rawPorts })}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

/** A DAT endpoint that echoes each message (or only empty ones: the bandwidth acknowledgement). */
async function serveDat(ia, mode) {
  const evd = ia.createEvd();
  const psp = await ia.createPspAny(evd);
  const pz = ia.createPz();
  const recvEvd = ia.createEvd();
  const reqEvd = ia.createEvd();
  const ep = ia.createEp(pz, { recv: recvEvd, request: reqEvd, connect: evd }, { maxRecvDtos: 256, maxRequestDtos: 256 });
  const buf = new Uint8Array(MAX);
  const lmr = pz.registerLmr(buf, MemAccess.LOCAL);
  const whole = [{ lmr, offset: 0, length: MAX }];
  for (let i = 0; i < 128; i++) ep.postRecv(whole, i);
  evd.setNotify(() => {
    for (let e = evd.dequeue(); e; e = evd.dequeue()) if (e.type === 'connection-request') e.request.accept(ep);
  });
  reqEvd.setNotify(() => {
    while (reqEvd.dequeue());
  });
  recvEvd.setNotify(() => {
    for (let e = recvEvd.dequeue(); e; e = recvEvd.dequeue()) {
      if (e.type !== 'dto-completion' || e.status !== 'DAT_DTO_SUCCESS') continue;
      ep.postRecv(whole, 0);
      if (mode === 'echo-all' || e.transferredLength === 0) ep.postSend([{ lmr, offset: 0, length: e.transferredLength }], 0, QUIET);
    }
  });
  return psp.connQual;
}

/**
 * Raw sockets read as the tcp provider does, into one reusable buffer (Node's `onread`) rather
 * than a fresh buffer per 'data' event: the best plain Node offers. `onread` exists for sockets
 * Node creates on connect; an accepted socket's handle is moved into one created with it.
 */
function readInto(push) {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  return { buffer, callback: (n) => push(buffer.subarray(0, n)) };
}

/** Raw sockets: 4-byte length prefix, payload copied into a buffer, then echoed (or acknowledged). */
function serveRaw(mode) {
  const server = createServer({ noDelay: true, pauseOnConnect: true }, (accepted) => {
    const handle = accepted._handle;
    accepted._handle = null;
    accepted.destroy();
    const reader = new MessageReader((length, bytes) => {
      if (mode === 'echo-all' || length === 0) writeMessage(socket, bytes.subarray(0, length));
    });
    const socket = new Socket({ handle, readable: true, writable: true, onread: readInto((chunk) => reader.push(chunk)) });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

class MessageReader {
  constructor(onMessage) {
    this.onMessage = onMessage;
    this.buf = new Uint8Array(MAX);
    this.header = Buffer.alloc(4);
    this.headerFill = 0;
    this.length = -1;
    this.filled = 0;
  }

  push(chunk) {
    let at = 0;
    while (at < chunk.length) {
      if (this.length < 0) {
        const n = Math.min(4 - this.headerFill, chunk.length - at);
        chunk.copy(this.header, this.headerFill, at, at + n);
        this.headerFill += n;
        at += n;
        if (this.headerFill < 4) return;
        this.length = this.header.readUInt32LE(0);
        this.headerFill = 0;
        this.filled = 0;
      }
      const n = Math.min(this.length - this.filled, chunk.length - at);
      this.buf.set(chunk.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.length) {
        const length = this.length;
        this.length = -1;
        this.onMessage(length, this.buf);
      }
    }
  }
}

function writeMessage(socket, bytes) {
  const header = Buffer.allocUnsafe(4);
  header.writeUInt32LE(bytes.length, 0);
  socket.cork();
  socket.write(header);
  if (bytes.length > 0) socket.write(bytes);
  socket.uncork();
}

// ---------------------------------------------------------------------------------------------
// The measuring process (rank 0).
// ---------------------------------------------------------------------------------------------

class DatPeer {
  static async connect(ia, address, port) {
    const peer = new DatPeer(ia);
    peer.ep.connect(address, port);
    const e = await peer.connectEvd.wait({ timeoutMs: 10_000 });
    if (e.type !== 'connection-established') throw new Error(`DAT connect failed: ${e.type} ${e.reason ?? ''}`);
    return peer;
  }

  constructor(ia) {
    this.pz = ia.createPz();
    this.recvEvd = ia.createEvd();
    this.reqEvd = ia.createEvd();
    this.connectEvd = ia.createEvd();
    this.ep = ia.createEp(this.pz, { recv: this.recvEvd, request: this.reqEvd, connect: this.connectEvd }, { maxRecvDtos: 256, maxRequestDtos: 256 });
    this.sbuf = randomBytes(MAX);
    this.rbuf = new Uint8Array(MAX);
    this.slmr = this.pz.registerLmr(this.sbuf, MemAccess.LOCAL);
    this.rlmr = this.pz.registerLmr(this.rbuf, MemAccess.LOCAL);
  }

  async recvOne() {
    // No per-wait timeout (it would arm a timer per message, which the raw side does not pay);
    // the run as a whole has a watchdog.
    const e = await this.recvEvd.wait();
    if (e.type !== 'dto-completion' || e.status !== 'DAT_DTO_SUCCESS') throw new Error(`unexpected ${e.type} ${e.status ?? ''}`);
    // Only a failed send would have raised an event here.
    const failed = this.reqEvd.dequeue();
    if (failed !== undefined) throw new Error(`a send failed: ${failed.type} ${failed.status ?? ''}`);
    return e.transferredLength;
  }

  async latency(size, iters) {
    const send = [{ lmr: this.slmr, offset: 0, length: size }];
    const recv = [{ lmr: this.rlmr, offset: 0, length: size }];
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) {
      this.ep.postRecv(recv, i);
      this.ep.postSend(send, i, QUIET);
      await this.recvOne();
    }
    return ((performance.now() - t0) * 1000) / iters / 2;
  }

  async bandwidth(size, iters, window) {
    const send = [{ lmr: this.slmr, offset: 0, length: size }];
    const ack = [{ lmr: this.rlmr, offset: 0, length: 0 }];
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) {
      this.ep.postRecv(ack, i);
      for (let w = 0; w < window; w++) this.ep.postSend(send, w, QUIET);
      this.ep.postSend([], -1, QUIET);
      await this.recvOne();
    }
    const seconds = (performance.now() - t0) / 1000;
    return (size * window * iters) / seconds / 1e6;
  }
}

class RawPeer {
  static connect(port) {
    return new Promise((resolve) => {
      const peer = new RawPeer();
      peer.socket = connect({ port, host: '127.0.0.1', noDelay: true, onread: readInto((chunk) => peer.reader.push(chunk)) }, () => resolve(peer));
    });
  }

  constructor() {
    this.socket = undefined;
    this.sbuf = randomBytes(MAX);
    this.waiter = undefined;
    this.reader = new MessageReader((length) => {
      const w = this.waiter;
      this.waiter = undefined;
      w?.(length);
    });
  }

  next() {
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  async latency(size, iters) {
    const msg = this.sbuf.subarray(0, size);
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) {
      const reply = this.next();
      writeMessage(this.socket, msg);
      await reply;
    }
    return ((performance.now() - t0) * 1000) / iters / 2;
  }

  async bandwidth(size, iters, window) {
    const msg = this.sbuf.subarray(0, size);
    const t0 = performance.now();
    for (let i = 0; i < iters; i++) {
      const ack = this.next();
      for (let w = 0; w < window; w++) writeMessage(this.socket, msg);
      writeMessage(this.socket, msg.subarray(0, 0));
      await ack;
    }
    const seconds = (performance.now() - t0) / 1000;
    return (size * window * iters) / seconds / 1e6;
  }
}

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

function sizes(min, max) {
  const out = [];
  for (let s = 1; s <= max; s *= 2) if (s >= min) out.push(s);
  return out;
}

function latencyIters(size, quick) {
  const n = size <= 16 * 1024 ? 2000 : size <= 256 * 1024 ? 300 : 40;
  return quick ? Math.max(5, n / 20) : n;
}

function bandwidthIters(size, quick) {
  const n = size <= 16 * 1024 ? 100 : size <= 512 * 1024 ? 16 : 4;
  return quick ? Math.max(1, n / 10) : n;
}

/** Until V8 has optimised both paths, the first few thousand round trips measure the JIT, not the transport. */
async function warmUp(datLat, rawLat, datBw, rawBw, quick) {
  const n = quick ? 200 : 5000;
  for (const size of [1, 4096, 65536]) {
    await datLat.latency(size, n);
    await rawLat.latency(size, n);
    await datBw.bandwidth(size, quick ? 2 : 20, 64);
    await rawBw.bandwidth(size, quick ? 2 : 20, 64);
  }
}

/** Alternate DAT and raw rounds, so drift and steal time hit both alike; medians of each. */
async function compare(rounds, dat, raw) {
  const d = [];
  const r = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) {
      d.push(await dat());
      r.push(await raw());
    } else {
      r.push(await raw());
      d.push(await dat());
    }
  }
  return [median(d), median(r)];
}

const pad = (v, n) => String(v).padEnd(n);
const fix = (v) => v.toFixed(2);

async function main() {
  const { values } = parseArgs({
    options: {
      'max-size': { type: 'string', default: String(MAX) },
      rounds: { type: 'string', default: '5' },
      window: { type: 'string', default: '64' },
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      'min-size': { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h', default: false },
      echo: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  if (values.echo) return echoMain();
  const maxSize = Number(values['max-size']);
  const minSize = Number(values['min-size']);
  if (values.only !== undefined && values.only !== 'lat' && values.only !== 'bw') {
    process.stderr.write('dat-pingpong: --only must be lat or bw\n');
    process.exit(2);
  }
  const rounds = Number(values.rounds);
  const window = Number(values.window);
  for (const [name, v, lo, hi] of [['--max-size', maxSize, 1, MAX], ['--min-size', minSize, 1, MAX], ['--rounds', rounds, 1, 101], ['--window', window, 1, 128]]) {
    if (!Number.isInteger(v) || v < lo || v > hi) {
      process.stderr.write(`dat-pingpong: ${name} must be an integer in [${lo}, ${hi}]\n`);
      process.exit(2);
    }
  }

  const watchdog = setTimeout(() => {
    process.stderr.write('dat-pingpong: no progress for 10 minutes; giving up\n');
    process.exit(1);
  }, 600_000);
  watchdog.unref();
  const key = randomBytes(32).toString('hex');
  process.env.DAPL_JOB_KEY = key;
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--echo'], { stdio: ['pipe', 'pipe', 'inherit'], env: process.env });
  const info = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(JSON.parse(String(d))));
    child.once('exit', (code) => reject(new Error(`echo process exited with ${code}`)));
  });
  const ia = await tcpProvider.openIa();
  const datLat = await DatPeer.connect(ia, info.address, info.datPorts[0]);
  const datBw = await DatPeer.connect(ia, info.address, info.datPorts[1]);
  const rawLat = await RawPeer.connect(info.rawPorts[0]);
  const rawBw = await RawPeer.connect(info.rawPorts[1]);

  await warmUp(datLat, rawLat, datBw, rawBw, values.quick);
  const runLat = values.only !== 'bw';
  const runBw = values.only !== 'lat';
  if (runLat) process.stdout.write(`# dapl.ts DAT ping-pong, tcp provider vs raw Node sockets, two processes on ${info.address}\n`);
  if (runLat) process.stdout.write(`# medians of ${rounds} alternating rounds; latency = half round trip\n`);
  if (runLat) process.stdout.write(`# ${pad('Size', 10)}${pad('DAT (us)', 14)}${pad('raw (us)', 14)}DAT/raw\n`);
  for (const size of runLat ? sizes(minSize, maxSize) : []) {
    const iters = latencyIters(size, values.quick);
    await datLat.latency(size, Math.max(2, iters / 4));
    await rawLat.latency(size, Math.max(2, iters / 4));
    const [d, r] = await compare(rounds, () => datLat.latency(size, iters), () => rawLat.latency(size, iters));
    process.stdout.write(`${pad(size, 12)}${pad(fix(d), 14)}${pad(fix(r), 14)}${fix(d / r)}\n`);
  }
  if (runBw) process.stdout.write(`\n# dapl.ts DAT streaming bandwidth (window ${window}), tcp provider vs raw Node sockets\n`);
  if (runBw) process.stdout.write(`# ${pad('Size', 10)}${pad('DAT (MB/s)', 14)}${pad('raw (MB/s)', 14)}DAT/raw\n`);
  for (const size of runBw ? sizes(minSize, maxSize) : []) {
    const iters = bandwidthIters(size, values.quick);
    await datBw.bandwidth(size, Math.max(1, iters / 4), window);
    await rawBw.bandwidth(size, Math.max(1, iters / 4), window);
    const [d, r] = await compare(rounds, () => datBw.bandwidth(size, iters, window), () => rawBw.bandwidth(size, iters, window));
    process.stdout.write(`${pad(size, 12)}${pad(fix(d), 14)}${pad(fix(r), 14)}${fix(d / r)}\n`);
  }
  child.stdin.end();
  await ia.close();
  rawLat.socket.destroy();
  rawBw.socket.destroy();
}

await main();
