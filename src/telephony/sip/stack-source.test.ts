// The stack hands its transaction user the packet's real source (transport, address, port,
// connection) with every request: new requests, in-dialog ones and ACKs for a 2xx alike, whatever
// the top Via claims. Driven through a fake transport: datagrams go into the receiver with a
// source of the test's choosing, and what the stack sends is captured instead of leaving a socket.
import { describe, expect, it } from 'vitest';
import { createReply } from './message/build.js';
import type { SipRequest } from './message/types.js';
import { wiredStack } from '../../../test/support/fake-wire.js';
import type { ServerTransaction } from './transaction/server.js';
import type { Source } from './transport/routing.js';

/** A request from the carrier whose top Via is written by `via`. */
const request = (method: string, via: string, extra: { toTag?: string; cseq?: number } = {}): string =>
  [
    `${method} sip:+14155550100@ws-1.sip.test SIP/2.0`,
    `Via: ${via}`,
    'Max-Forwards: 70',
    `To: <sip:+14155550100@ws-1.sip.test>${extra.toTag ? `;tag=${extra.toTag}` : ''}`,
    'From: <sip:+4930123456@carrier.test>;tag=c1',
    'Call-ID: source-test@carrier',
    `CSeq: ${extra.cseq ?? 1} ${method}`,
    'Contact: <sip:carrier@203.0.113.10:5060>',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');

const SPOOFED = 'SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKspoof1';
const FROM: Source = { transport: 'UDP', address: '198.51.100.7', port: 40001 };

describe('SipStack: the packet source reaches the transaction user', () => {
  it('a UDP INVITE without rport: the source is the packet’s address and port, not its Via', () => {
    const seen: Source[] = [];
    let invite: ServerTransaction | undefined;
    const w = wiredStack({
      onRequest: (_req, tx, source) => {
        seen.push(source);
        invite = tx;
        return true;
      },
    });
    w.deliver(request('INVITE', SPOOFED), FROM);
    expect(seen).toEqual([FROM]);
    // Responses still follow RFC 3261 18.2.2: received (the true address) at the Via's port.
    const trying = w.responses()[0]!;
    expect(trying.message.status).toBe(100);
    expect(trying.to).toMatchObject({ host: '198.51.100.7', port: 5060 });
    expect(invite!.destination).toMatchObject({ host: '198.51.100.7', port: 5060 });
  });

  it('non-INVITE requests, in-dialog requests and the ACK for a 2xx carry it too', () => {
    const seen: { method: string; source: Source }[] = [];
    const w = wiredStack({
      onRequest: (req, tx, source) => {
        seen.push({ method: req.method, source });
        if (req.method !== 'INVITE') return false;
        const ok = createReply(req, 200, 'OK', {
          toTag: 'us',
          headers: [['Contact', '<sip:sb@192.0.2.1:5060>']],
        });
        w.stack.registerDialog(
          { callId: req.callId, localTag: 'us', remoteTag: 'c1' },
          (inDialog: SipRequest, dtx, dialogSource) => {
            seen.push({ method: inDialog.method, source: dialogSource });
            dtx?.respond(createReply(inDialog, 200, 'OK'));
          },
        );
        tx.respond(ok);
        return true;
      },
    });
    w.deliver(request('OPTIONS', 'SIP/2.0/UDP 203.0.113.10;branch=z9hG4bKo1'), FROM);
    w.deliver(request('INVITE', SPOOFED), FROM);
    const later: Source = { transport: 'UDP', address: '198.51.100.8', port: 40002 };
    w.deliver(request('ACK', 'SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKa1', { toTag: 'us' }), later);
    w.deliver(
      request('BYE', 'SIP/2.0/UDP 203.0.113.10:5060;branch=z9hG4bKb1', { toTag: 'us', cseq: 2 }),
      later,
    );
    expect(seen).toEqual([
      { method: 'OPTIONS', source: FROM },
      { method: 'INVITE', source: FROM },
      { method: 'ACK', source: later },
      { method: 'BYE', source: later },
    ]);
  });

  it('over TCP the source names the connection', () => {
    const seen: Source[] = [];
    const w = wiredStack({
      onRequest: (_req, _tx, source) => {
        seen.push(source);
        return false;
      },
    });
    const tcp: Source = { transport: 'TCP', address: '198.51.100.9', port: 51234, connectionId: 'c7' };
    w.deliver(request('MESSAGE', 'SIP/2.0/TCP 203.0.113.10:5060;branch=z9hG4bKm1'), tcp);
    expect(seen).toEqual([tcp]);
    expect(w.responses()[0]!.to).toMatchObject({ host: '198.51.100.9', connectionId: 'c7' });
  });
});
