// The decoder thread holds the process only while it decodes: a warmed, idle thread must not keep
// a stopped service alive (Node refs a worker again when a 'message' listener is added to it).
import { describe, expect, it } from 'vitest';
import { DecoderWorker } from './decoder-worker.js';

const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;

describe('DecoderWorker', () => {
  it('an idle thread, once started, holds no reference on the process', async () => {
    const before = ports();
    // No model needed: the thread exists (and idles) whatever its model load does.
    const worker = new DecoderWorker({
      moduleUrl: 'file:///nonexistent.js',
      modelBase: '/nonexistent/',
      config: {},
    });
    worker.warm();
    expect(ports()).toBe(before);
    await worker.close();
  });
});
