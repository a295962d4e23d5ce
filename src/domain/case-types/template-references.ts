/**
 * Action input templates (issue 14): text with `{{ reference }}` placeholders. A template that is
 * exactly one placeholder keeps the referenced value's type (a number input stays a number);
 * otherwise the values are written into the text, null as the empty string.
 *
 * References: `facts.<fact_id>.value`, `inputs.<field_id>`, and `case.<field>` for the case id,
 * its case type and the integration's external ids.
 */
export const CASE_REFERENCE_FIELDS = ['case_id', 'case_type_id', 'external_case_id', 'external_applicant_id', 'external_customer_id'] as const;
export type CaseField = (typeof CASE_REFERENCE_FIELDS)[number];

export type TemplateReference =
  | { kind: 'fact'; factId: string }
  | { kind: 'input'; fieldId: string }
  | { kind: 'case'; field: CaseField };

export const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

export function parseReference(text: string): TemplateReference | undefined {
  const fact = /^facts\.([a-z][a-z0-9_]{0,63})\.value$/.exec(text);
  if (fact) return { kind: 'fact', factId: fact[1]! };
  const input = /^inputs\.([a-z][a-z0-9_]{0,63})$/.exec(text);
  if (input) return { kind: 'input', fieldId: input[1]! };
  const field = /^case\.([a-z_]+)$/.exec(text)?.[1];
  if (field && (CASE_REFERENCE_FIELDS as readonly string[]).includes(field)) return { kind: 'case', field: field as CaseField };
  return undefined;
}

/** Every placeholder of a template, parsed, or the text of the first one that is not a known reference. */
export function templateReferences(template: string): { ok: true; references: TemplateReference[] } | { ok: false; unknown: string } {
  const references: TemplateReference[] = [];
  for (const match of template.matchAll(PLACEHOLDER)) {
    const ref = parseReference(match[1]!);
    if (!ref) return { ok: false, unknown: match[1]! };
    references.push(ref);
  }
  return { ok: true, references };
}
