/** Contract §4. `*` grants every scope. */
export const SCOPES = [
  'cases:read',
  'cases:write',
  'cases:erase',
  'sessions:write',
  'process:write',
  'webhooks:read',
  'webhooks:write',
  'webhooks:test',
  'webhooks:acknowledge',
  'webhooks:listen',
  'connectors:read',
  'connectors:write',
  'case_types:read',
] as const;

export type Scope = (typeof SCOPES)[number];
export type GrantedScope = Scope | '*';

export function isGrantedScope(value: string): value is GrantedScope {
  return value === '*' || (SCOPES as readonly string[]).includes(value);
}

export function hasScope(granted: readonly string[], required: Scope): boolean {
  return granted.includes('*') || granted.includes(required);
}
