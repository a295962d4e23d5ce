/**
 * Every applicant-facing string, in English. Keys are grouped by page; `{name}` placeholders are
 * filled by `translate`. French (fr.ts) must define every key: its type says so.
 */
export const en = {
  'common.skip_to_content': 'Skip to main content',
  'common.continue': 'Continue',
  'common.back': 'Back',
  'common.change': 'Change',
  'common.optional': '(optional)',
  'common.error_summary_title': 'There is a problem',
  'common.error_prefix': 'Error:',
  'common.service_name': 'Secure document intake',
  'common.test_banner': 'This is a test session. Nothing you send here is used for a real decision.',
  'common.footer': 'Your answers and documents are sent securely to {org}.',
  'common.language': 'Language',

  'error.forbidden.title': 'This link does not work',
  'error.forbidden.body': 'The link you used is not valid. Open the link you were sent again, without changing it. If it still does not work, ask the organisation that sent it for a new link.',
  'error.expired.title': 'This link has expired',
  'error.expired.body': 'For your security, links stop working after a while. Ask the organisation that sent it for a new link.',
  'error.expired.return': 'Go back to {org}',
  'error.not_found.title': 'Page not found',
  'error.not_found.body': 'If you typed the web address, check it is correct. If you followed a link, open the link you were sent again.',
  'error.server.title': 'Sorry, there is a problem with the service',
  'error.server.body': 'Try again later. Your answers and uploaded files have been saved.',
  'error.csrf.title': 'Your page was out of date',
  'error.csrf.body': 'We could not save what you sent because the page had expired. Go back, reload the page and try again.',
  'error.rate_limited.title': 'Too many attempts',
  'error.rate_limited.body': 'You have sent a lot of changes in a short time. Wait a minute and try again.',
} as const;

export type MessageKey = keyof typeof en;
export type Messages = Readonly<Record<MessageKey, string>>;
