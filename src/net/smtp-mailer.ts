import { createTransport } from 'nodemailer';
import type { Mailer } from '../ports/mailer.ts';

/**
 * Sends through the deployment's SMTP server (SMTP_URL) with nodemailer: a connection per
 * message, STARTTLS when the server offers it (smtps:// for implicit TLS). Timeouts are short so an admin's
 * "Send invitation" never hangs on a dead server; the page then says the mail was not sent and
 * shows the link.
 */
export function createSmtpMailer(config: { smtpUrl: string; from: string }): Mailer {
  const transport = createTransport({ url: config.smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }, { from: config.from });
  return {
    async send(message) {
      await transport.sendMail({ from: config.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
    },
    close() {
      transport.close();
    },
  };
}
