import { failOn, type Failure } from '../errors.ts';

/** Hosts a developer's own machine answers on: the only http return addresses, and only in test mode. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Where the applicant is sent back to. Live sessions return to https only. Test sessions may also
 * return to http on the developer's own machine (localhost, 127.0.0.1, [::1]), as Stripe allows
 * http redirect URLs with test keys, so the first integration runs without a certificate.
 * Undefined when the address is allowed.
 */
export function returnUrlProblem(environment: 'test' | 'live', returnUrl: string | undefined): Failure | undefined {
  if (returnUrl === undefined) return undefined;
  const url = URL.parse(returnUrl);
  if (url === null) return failOn('return_url', 'invalid_request', 'Invalid return_url: must be an absolute URL.');
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && environment === 'test' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  const allowed = environment === 'test' ? 'an https URL, or http://localhost, http://127.0.0.1 or http://[::1] with a test key' : 'an https URL with a live key';
  return failOn('return_url', 'invalid_request', `Invalid return_url: must be ${allowed}.`);
}
