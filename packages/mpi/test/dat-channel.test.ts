// The Channel Interface's blocking forms over DAT send/recv, on a job of one rank talking to itself
// through the tcp provider's loopback connection: control packets in order, SHORT data inside them,
// data that follows a packet on the stream, a window of frames beyond the credits, and a peer's loss.
import { DaplConfig, SingletonRuntime, WallClock, startJob, type DaplJob } from '@dapl/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlKind, emptyPacket } from '../src/device/channel/channel.js';
import { DatChannel } from '../src/device/channel/dat-channel.js';

const OPTIONS = { packetSize: 4096, buffers: 4, shortLimit: 256, sendBuffers: 8, registrationCache: 4 };

let job: DaplJob | undefined;
afterEach(async () => {
  await job?.finish();
  job = undefined;
});

async function loopbackChannel(): Promise<DatChannel> {
  const channel = new DatChannel(OPTIONS, new WallClock());
  job = await startJob({ config: new DaplConfig({ env: { DAPL_PROVIDER: 'tcp' } }), runtime: new SingletonRuntime({ exit: () => undefined }), connections: { prepare: channel.prepare } });
  channel.attach(job.connections);
  return channel;
}

describe('DatChannel (MPICH Channel Interface over DAT send/recv)', () => {
  it('delivers control packets in order with their SHORT data, and the data after a packet into recvFromChannel', async () => {
    const channel = await loopbackChannel();
    expect(channel.controlMsgAvail()).toBe(false);
    const packet = emptyPacket();
    for (let i = 0; i < 10; i++) {
      packet.kind = ControlKind.SHORT;
      packet.tag = i;
      packet.payload = new Uint8Array([i, i + 1, i + 2]);
      packet.size = 3;
      void channel.sendControl(packet, 0);
    }
    for (let i = 0; i < 10; i++) {
      const { packet: got, from } = await channel.recvAnyControl();
      expect(from).toBe(0);
      expect([got.kind, got.tag, ...got.payload!]).toEqual([ControlKind.SHORT, i, i, i + 1, i + 2]);
    }
    // 20 KiB of data behind an EAGER packet: five frames through a window of four buffers.
    const data = Uint8Array.from({ length: 20_000 }, (_, i) => (i * 7) & 255);
    packet.kind = ControlKind.EAGER;
    packet.size = data.length;
    packet.payload = undefined;
    const sent = Promise.all([channel.sendControl(packet, 0), channel.sendChannel(data, 0)]);
    const { packet: announced } = await channel.recvAnyControl();
    expect([announced.kind, announced.size]).toEqual([ControlKind.EAGER, 20_000]);
    const into = new Uint8Array(20_000);
    await Promise.all([channel.recvFromChannel(into, 0), sent]);
    expect(into).toEqual(data);
    expect(channel.counts.framesSent).toBeGreaterThanOrEqual(16);
    channel.close();
  }, 30_000);

  it('a stream that breaks fails what waits on it and what is sent after', async () => {
    const channel = await loopbackChannel();
    const lost: number[] = [];
    channel.onPeerLost((peer) => lost.push(peer));
    const packet = emptyPacket();
    packet.kind = ControlKind.REQUEST_TO_SEND;
    await channel.sendControl(packet, 0);
    await channel.recvAnyControl();
    const waiting = channel.recvFromChannel(new Uint8Array(10), 0);
    (await job!.connections.endpoint(0)).disconnect();
    await expect(waiting).rejects.toThrow(/lost|FLUSHED/);
    expect(lost).toEqual([0]);
    await expect(channel.sendChannel(new Uint8Array(4), 0)).rejects.toThrow();
    channel.close();
  }, 30_000);
});
