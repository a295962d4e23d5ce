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

/** Families written for issue 13 (documents from outside the pay stub / bill pair). */
export const BANK_STATEMENT_FACTS: readonly FactDefinition[] = [
  { fact_id: 'account_holder', label: 'Account holder', type: 'name', required: true, document_kinds: ['bank_statement'], anchors: ['Account holder', 'Account name'] },
  { fact_id: 'account_number', label: 'Account number', type: 'id_number', required: true, document_kinds: ['bank_statement'], anchors: ['IBAN', 'Account number'] },
  { fact_id: 'statement_date', label: 'Statement date', type: 'date', required: true, document_kinds: ['bank_statement'], anchors: ['Statement date', 'Date of statement'] },
  { fact_id: 'closing_balance', label: 'Closing balance', type: 'money', required: true, document_kinds: ['bank_statement'], anchors: ['Closing balance', 'Balance carried forward'] },
];

export const INVOICE_FACTS: readonly FactDefinition[] = [
  { fact_id: 'customer_name', label: 'Customer', type: 'name', required: true, document_kinds: ['invoice'], anchors: ['Bill to', 'Customer name'] },
  { fact_id: 'invoice_number', label: 'Invoice number', type: 'id_number', required: true, document_kinds: ['invoice'], anchors: ['Invoice number', 'Invoice no'] },
  { fact_id: 'invoice_date', label: 'Invoice date', type: 'date', required: true, document_kinds: ['invoice'], anchors: ['Invoice date', 'Date of issue'] },
  { fact_id: 'total_due', label: 'Total due', type: 'money', required: true, document_kinds: ['invoice'], anchors: ['Total due', 'Amount payable'] },
];

export const REGISTRATION_FACTS: readonly FactDefinition[] = [
  { fact_id: 'registered_name', label: 'Registered name', type: 'string', required: true, document_kinds: ['registration'], anchors: ['Registered name', 'Company name'] },
  { fact_id: 'registration_number', label: 'Registration number', type: 'id_number', required: true, document_kinds: ['registration'], anchors: ['Registration number', 'Registration no'] },
  { fact_id: 'registered_address', label: 'Registered office', type: 'address', required: true, document_kinds: ['registration'], anchors: ['Registered office', 'Registered address'] },
  { fact_id: 'registration_date', label: 'Date of registration', type: 'date', required: true, document_kinds: ['registration'], anchors: ['Date of registration', 'Registered on'] },
];

/**
 * Families written for issue 28, after its failure classes were closed and never tuned on: their
 * first measurement is the leave-one-family-out figure. Anchors are what a case type's author
 * would write, qualifiers included ("Premium (yearly)").
 */
export const INSURANCE_SCHEDULE_FACTS: readonly FactDefinition[] = [
  { fact_id: 'policyholder', label: 'Policyholder', type: 'name', required: true, document_kinds: ['insurance_schedule'], anchors: ['Policyholder', 'Insured'] },
  { fact_id: 'policy_number', label: 'Policy number', type: 'id_number', required: true, document_kinds: ['insurance_schedule'], anchors: ['Policy number', 'Policy ref'] },
  { fact_id: 'premium', label: 'Premium', type: 'money', required: true, document_kinds: ['insurance_schedule'], anchors: ['Premium (yearly)', 'Annual premium'] },
  { fact_id: 'cover_start', label: 'Cover starts', type: 'date', required: true, document_kinds: ['insurance_schedule'], anchors: ['Start of cover', 'Effective date'] },
];

export const TAX_NOTICE_FACTS: readonly FactDefinition[] = [
  { fact_id: 'taxpayer', label: 'Taxpayer', type: 'name', required: true, document_kinds: ['tax_notice'], anchors: ['Taxpayer', 'Name of taxpayer'] },
  { fact_id: 'tax_reference', label: 'Tax reference', type: 'id_number', required: true, document_kinds: ['tax_notice'], anchors: ['Tax reference', 'Taxpayer number'] },
  { fact_id: 'amount_payable', label: 'Amount payable', type: 'money', required: true, document_kinds: ['tax_notice'], anchors: ['Amount payable (incl. interest)', 'Tax due'] },
  { fact_id: 'notice_date', label: 'Date of notice', type: 'date', required: true, document_kinds: ['tax_notice'], anchors: ['Date of notice', 'Notice date'] },
];

export const EMPLOYMENT_LETTER_FACTS: readonly FactDefinition[] = [
  { fact_id: 'employee', label: 'Employee', type: 'name', required: true, document_kinds: ['employment_letter'], anchors: ['Employee', 'Name of employee'] },
  { fact_id: 'employer', label: 'Employer', type: 'string', required: true, document_kinds: ['employment_letter'], anchors: ['Employer', 'Company'] },
  { fact_id: 'employed_since', label: 'Employed since', type: 'date', required: true, document_kinds: ['employment_letter'], anchors: ['Employed since', 'Start date'] },
  { fact_id: 'salary', label: 'Salary', type: 'money', required: true, document_kinds: ['employment_letter'], anchors: ['Salary (gross, yearly)', 'Annual gross salary'] },
];

export const TENANCY_FACTS: readonly FactDefinition[] = [
  { fact_id: 'tenant', label: 'Tenant', type: 'name', required: true, document_kinds: ['tenancy_agreement'], anchors: ['Tenant', 'Lessee'] },
  { fact_id: 'property_address', label: 'Property', type: 'address', required: true, document_kinds: ['tenancy_agreement'], anchors: ['Property address', 'Premises'] },
  { fact_id: 'monthly_rent', label: 'Rent', type: 'money', required: true, document_kinds: ['tenancy_agreement'], anchors: ['Rent (monthly)', 'Monthly rent'] },
  { fact_id: 'tenancy_start', label: 'Tenancy starts', type: 'date', required: true, document_kinds: ['tenancy_agreement'], anchors: ['Commencement date', 'Tenancy start'] },
];

/** The families of the default test corpus (issues 10 and 13); tests generate these. */
export const DOCUMENT_KINDS = ['pay_stub', 'utility_bill', 'bank_statement', 'invoice', 'registration'] as const;
/** Every family, the nine the evaluation cycles through. */
export const ALL_DOCUMENT_KINDS = [...DOCUMENT_KINDS, 'insurance_schedule', 'tax_notice', 'employment_letter', 'tenancy_agreement'] as const;
export type DocumentKind = (typeof ALL_DOCUMENT_KINDS)[number];

export const FACTS_BY_KIND: Record<DocumentKind, readonly FactDefinition[]> = {
  pay_stub: PAY_STUB_FACTS,
  utility_bill: UTILITY_BILL_FACTS,
  bank_statement: BANK_STATEMENT_FACTS,
  invoice: INVOICE_FACTS,
  registration: REGISTRATION_FACTS,
  insurance_schedule: INSURANCE_SCHEDULE_FACTS,
  tax_notice: TAX_NOTICE_FACTS,
  employment_letter: EMPLOYMENT_LETTER_FACTS,
  tenancy_agreement: TENANCY_FACTS,
};
