// A web session's realtime socket as a test drives it: the first frames go out as it opens (a
// browser joining with its offer does that), every frame received is kept, and waitFor resolves
// on the first frame (already received or to come) that matches. With the helpers the WebRTC
// tests share: trickling a ClientPeer's candidates, and polling the store until a row appears.
import WebSocket from 'ws';
import type { ClientPeer } from '../../src/webrtc/client-peer.js';

export interface Frame {
  type: string;
  [k: string]: unknown;
}

export interface RealtimeSocket {
  ws: WebSocket;
  frames: Frame[];
  waitFor(pred: (f: Frame) => boolean): Promise<Frame>;
  send(m: object | string): void;
}

export function realtimeSocket(url: string, first: object[] = []): RealtimeSocket {
  const ws = new WebSocket(url);
  const frames: Frame[] = [];
  const waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  ws.on('open', () => {
    for (const m of first) ws.send(JSON.stringify(m));
  });
  ws.on('message', (data) => {
    const f = JSON.parse(String(data)) as Frame;
    frames.push(f);
    for (const w of [...waiters]) {
      if (!w.pred(f)) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(f);
    }
  });
  const waitFor = (pred: (f: Frame) => boolean) =>
    new Promise<Frame>((resolve) => {
      const hit = frames.find(pred);
      if (hit) resolve(hit);
      else waiters.push({ pred, resolve });
    });
  return {
    ws,
    frames,
    waitFor,
    send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)),
  };
}

/** The browser's candidates as trickle ICE frames, then the end of them. */
export function trickle(c: Pick<RealtimeSocket, 'send'>, browser: ClientPeer): void {
  for (const candidate of browser.candidates()) c.send({ type: 'ice_candidate', candidate, sdp_mid: '0' });
  c.send({ type: 'ice_candidate', candidate: null });
}

/** Polls `read` until it returns something defined (store rows written after the session ends). */
export async function eventually<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await read();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
}
