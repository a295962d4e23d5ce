/** One message Dossier sends: plain text always, HTML beside it for clients that show it. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

/**
 * Where Dossier's own mail goes (operator invitations; later the applicant's "email me a link").
 * `send` resolves once the server has accepted the message, and throws when it has not: the
 * caller decides whether a failed send is the operation's failure.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}
