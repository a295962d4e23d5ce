import type { FactDefinition } from '../../src/domain/extraction/types.ts';

/**
 * The fact definitions of shared/examples/case-types (income_verification, address_proof), copied
 * so the evaluation runs without the shared folder; test/extraction checks the copy against the
 * originals when they are present.
 */
export const PAY_STUB_FACTS: readonly FactDefinition[] = [
  { fact_id: 'employee_name', label: 'Employee name', type: 'name', required: true, document_kinds: ['pay_stub'], anchors: ['Employee name', 'Employee'] },
  { fact_id: 'employer_name', label: 'Employer', type: 'string', required: false, document_kinds: ['pay_stub'], anchors: ['Employer', 'Company'] },
  { fact_id: 'pay_date', label: 'Pay date', type: 'date', required: true, document_kinds: ['pay_stub'], anchors: ['Pay date', 'Check date', 'Payment date'] },
  { fact_id: 'gross_pay', label: 'Gross pay', type: 'money', required: true, document_kinds: ['pay_stub'], anchors: ['Gross pay', 'Gross earnings', 'Total gross'] },
];

export const UTILITY_BILL_FACTS: readonly FactDefinition[] = [
  { fact_id: 'holder_name', label: 'Account holder', type: 'name', required: true, document_kinds: ['utility_bill'], anchors: ['Account holder', 'Customer name', 'Bill to'] },
  { fact_id: 'service_address', label: 'Service address', type: 'address', required: true, document_kinds: ['utility_bill'], anchors: ['Service address', 'Supply address'] },
  { fact_id: 'statement_date', label: 'Statement date', type: 'date', required: true, document_kinds: ['utility_bill'], anchors: ['Statement date', 'Bill date', 'Issue date'] },
];

export type DocumentKind = 'pay_stub' | 'utility_bill';

export const FACTS_BY_KIND: Record<DocumentKind, readonly FactDefinition[]> = {
  pay_stub: PAY_STUB_FACTS,
  utility_bill: UTILITY_BILL_FACTS,
};
