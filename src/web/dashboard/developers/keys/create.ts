import { z } from 'zod';
import type { Environment } from '../../../../config.ts';
import { createApiKey } from '../../../../domain/keys/keys.ts';
import { SCOPES } from '../../../../domain/keys/scopes.ts';
import { formList, formText } from '../../../page-route.ts';
import type { ErrorItem } from '../../../ui/components.ts';
import { tenantOf } from '../../context.ts';
import { dashboardRoute } from '../../route.ts';
import { flashDeps, setFlash } from '../flash.ts';
import { KEYS_PATH, showKeys, type KeyForm } from './list.ts';

const positiveWhole = /^[1-9][0-9]{0,6}$/;

/** Server-side validation of the create form; each problem names its field, as the error summary links to it. */
function validateKeyForm(form: KeyForm, accepted: readonly Environment[]): ErrorItem[] {
  const errors: ErrorItem[] = [];
  if (form.name.trim() === '') errors.push({ href: 'key-name', text: 'Enter a name for the key, like “Production backend”' });
  else if (form.name.trim().length > 200) errors.push({ href: 'key-name', text: 'The name must be 200 characters or fewer' });
  if (!(accepted as readonly string[]).includes(form.environment)) errors.push({ href: 'key-environment', text: 'Choose test or live' });
  if (form.scopes.length === 0) errors.push({ href: 'key-scopes', text: 'Choose at least one scope, or all scopes' });
  if (form.expiresInDays !== '' && !positiveWhole.test(form.expiresInDays)) errors.push({ href: 'key-expiry', text: 'Expiry must be a whole number of days, like 90' });
  if (form.rateLimit !== '' && !positiveWhole.test(form.rateLimit)) errors.push({ href: 'key-rate-limit', text: 'The rate limit must be a whole number of requests per minute, like 600' });
  return errors;
}

/** POST /dashboard/developers/keys: creates a key and shows it once (through the flash), or the form again with its problems. */
export const createKeyPost = dashboardRoute({
  method: 'POST',
  url: '/developers/keys',
  auth: 'admin',
  body: z.object({ name: formText, environment: formText, scopes: formList, expires_in_days: formText, rate_limit: formText }),
  handler: async ({ request, reply, body, deps }) => {
    const { ctx } = deps;
    const form: KeyForm = {
      name: body.name,
      environment: body.environment,
      scopes: body.scopes,
      expiresInDays: body.expires_in_days.trim(),
      rateLimit: body.rate_limit.trim(),
    };
    const errors = validateKeyForm(form, ctx.config.acceptedKeyEnvironments);
    const knownScopes = form.scopes.filter((s) => s === '*' || (SCOPES as readonly string[]).includes(s));
    if (knownScopes.length !== form.scopes.length) errors.push({ href: 'key-scopes', text: 'Choose scopes from the list' });
    if (errors.length > 0) return showKeys(request, reply, deps, form, errors);
    const created = await createApiKey(ctx, {
      orgId: tenantOf(request).orgId,
      environment: form.environment as Environment,
      scopes: knownScopes,
      name: form.name.trim(),
      ...(form.expiresInDays ? { expiresInSeconds: Number(form.expiresInDays) * 86_400 } : {}),
      ...(form.rateLimit ? { rateLimitPerMinute: Number(form.rateLimit) } : {}),
    });
    if (!created.ok) return showKeys(request, reply, deps, form, [{ href: 'key-name', text: created.message }]);
    setFlash(reply, request, flashDeps(deps), { kind: 'key_created', key_id: created.value.key_id, key: created.value.key });
    return reply.redirect(KEYS_PATH, 303);
  },
});
