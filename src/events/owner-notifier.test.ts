import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { pino } from 'pino';
import { createOwnerNotifier } from './owner-notifier.js';

describe('owner notifier', () => {
  const mails: Array<{ from: string; to: string[]; raw: string }> = [];
  let server: SMTPServer;
  let port = 0;

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          mails.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const notice = {
    to: 'owner@example.test',
    workspaceId: 'w1',
    endpointId: 'ep1',
    url: 'https://hooks.example.test/in',
    failingSince: '2026-03-01T00:00:00.000Z',
  };

  it('e-mails the workspace owner through SMTP_URL', async () => {
    const notifier = createOwnerNotifier({
      smtpUrl: `smtp://127.0.0.1:${port}`,
      logger: pino({ level: 'silent' }),
    });
    await notifier.endpointPaused(notice);
    notifier.close();
    expect(mails).toHaveLength(1);
    expect(mails[0]!.to).toEqual(['owner@example.test']);
    expect(mails[0]!.raw).toMatch(/^Subject: Webhook endpoint paused: https:\/\/hooks\.example\.test\/in/m);
    expect(mails[0]!.raw).toContain('ep1');
  });

  it('logs the notice when SMTP_URL is unset', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (l: string) => void lines.push(l) });
    const notifier = createOwnerNotifier({ smtpUrl: undefined, logger });
    await notifier.endpointPaused(notice);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ endpoint_id: 'ep1', to: 'owner@example.test' });
  });
});
