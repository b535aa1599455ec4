// The Node-side browser stand-in's connected(): it resolves once the connection and its data
// channel are up, and a connection that ends before the data channel opens rejects it rather than
// leaving it waiting for good. The far side is a bare node-datachannel peer whose answer turns
// the data channel down (port 0), so the connection comes up and the channel never does.
import nodeDataChannel from 'node-datachannel';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientPeer } from './client-peer.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

/**
 * A far side for `browser`'s offer whose answer (audio only: the application section refused) goes
 * without candidates, which are trickled both ways once each side has the other's description, as
 * the stand-in's own offer does (candidates inside a description race its processing).
 */
async function answerWithoutData(browser: ClientPeer): Promise<void> {
  const offer = await browser.offer();
  const far = new nodeDataChannel.PeerConnection('far', { iceServers: [], bindAddress: '127.0.0.1' });
  open.push(far);
  const gathered = new Promise<void>((resolve) =>
    far.onGatheringStateChange((s) => s === 'complete' && resolve()),
  );
  const audio = new nodeDataChannel.Audio('0', 'SendRecv');
  audio.addOpusCodec(111);
  far.addTrack(audio);
  far.setRemoteDescription(offer, 'offer');
  await gathered;
  const lines = far.localDescription()!.sdp.split(/\r?\n/);
  const candidates = lines.filter((l) => l.startsWith('a=candidate:')).map((l) => l.slice(2));
  const answer = lines
    .filter((l) => !l.startsWith('a=candidate:') && l !== 'a=end-of-candidates')
    .join('\r\n')
    .replace(/^m=application \d+/m, 'm=application 0');
  browser.accept(answer);
  for (const c of browser.candidates()) far.addRemoteCandidate(c, '0');
  for (const c of candidates) browser.pc.addRemoteCandidate(c, '0');
}

describe('ClientPeer.connected', () => {
  it('rejects when the connection closes before its data channel opens', async () => {
    const browser = new ClientPeer();
    open.push(browser);
    await answerWithoutData(browser);
    const connected = browser.connected();
    let settled = false;
    connected.then(
      () => (settled = true),
      () => (settled = true),
    );
    await browser.until('connected');
    expect(settled).toBe(false); // waiting for a data channel that will not open
    browser.close();
    await expect(connected).rejects.toThrow(/closed before its data channel opened/);
  });
});
