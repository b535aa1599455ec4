// Tells a workspace owner that one of their webhook endpoints was paused automatically. Sent with
// nodemailer through SMTP_URL; when that is unset (or the workspace has no owner e-mail) the
// notice goes to the log instead, so it is never dropped without a trace.
import nodemailer from 'nodemailer';
import type { Logger } from '../shared/logger.js';

export interface EndpointPausedNotice {
  to: string | null;
  workspaceId: string;
  endpointId: string;
  url: string;
  failingSince: string;
}

export interface OwnerNotifier {
  endpointPaused(notice: EndpointPausedNotice): Promise<void>;
  close(): void;
}

export interface NotifierOptions {
  smtpUrl: string | undefined;
  logger: Logger;
  from?: string;
}

export function createOwnerNotifier(options: NotifierOptions): OwnerNotifier {
  const transport = options.smtpUrl ? nodemailer.createTransport(options.smtpUrl) : null;
  const from = options.from ?? 'Switchboard <no-reply@switchboard.localhost>';
  return {
    async endpointPaused(n) {
      const subject = `Webhook endpoint paused: ${n.url}`;
      const text = [
        `Your webhook endpoint ${n.url} (id ${n.endpointId}) has failed every delivery since ${n.failingSince},`,
        'seven days in a row, so Switchboard has paused it.',
        '',
        'Events for it are still recorded: they appear in its delivery log as failed ("endpoint paused")',
        'and can be redelivered once the endpoint works again. Resume it with',
        `PATCH /api/v1/webhook-endpoints/${n.endpointId} {"status": "active"}.`,
      ].join('\n');
      if (!transport || !n.to) {
        options.logger.warn(
          { workspace_id: n.workspaceId, endpoint_id: n.endpointId, to: n.to, subject },
          'webhook endpoint auto-paused (owner e-mail not sent: SMTP_URL or owner e-mail unset)',
        );
        return;
      }
      await transport.sendMail({ from, to: n.to, subject, text });
      options.logger.info(
        { workspace_id: n.workspaceId, endpoint_id: n.endpointId },
        'owner told of auto-pause',
      );
    },
    close() {
      transport?.close();
    },
  };
}
