import { answerText } from '../case-types/field-values.ts';
import type { CaseState } from '../cases/case-state.ts';
import { parseReference, PLACEHOLDER, type CaseField, type TemplateReference } from '../case-types/template-references.ts';

/** Action input templates rendered against a case; their syntax is case-types/template-references.ts. */
export interface TemplateContext {
  facts: ReadonlyMap<string, string | null>;
  inputs: Readonly<Record<string, unknown>>;
  case: Readonly<Record<CaseField, string | null>>;
}

function valueOf(ref: TemplateReference, context: TemplateContext): unknown {
  switch (ref.kind) {
    case 'fact':
      return context.facts.get(ref.factId) ?? null;
    case 'input':
      return context.inputs[ref.fieldId] ?? null;
    case 'case':
      return context.case[ref.field] ?? null;
  }
}

export function renderTemplate(template: string, context: TemplateContext): unknown {
  const whole = /^\{\{\s*([^{}]*?)\s*\}\}$/.exec(template);
  if (whole) {
    const ref = parseReference(whole[1]!);
    return ref ? valueOf(ref, context) : null;
  }
  return template.replace(PLACEHOLDER, (_, text: string) => {
    const ref = parseReference(text.trim());
    const value = ref ? valueOf(ref, context) : null;
    if (value === null || value === undefined) return '';
    // Inside text, an address answer reads as one line ("12 High Street, Leeds, LS1 4AB"); a whole
    // `{{inputs.address}}` above keeps the object for a JSON body.
    return typeof value === 'object' ? (answerText(value) ?? JSON.stringify(value)) : String(value);
  });
}

/** What an action's input templates can reference: the case as it is now. */
export function templateContext(state: CaseState): TemplateContext {
  return {
    facts: new Map(state.facts.map((f) => [f.factId, f.value])),
    inputs: state.structuredInputs,
    case: {
      case_id: state.caseId,
      case_type_id: state.caseTypeId,
      external_case_id: state.externalCaseId,
      external_applicant_id: state.externalApplicantId,
      external_customer_id: state.externalCustomerId,
    },
  };
}
