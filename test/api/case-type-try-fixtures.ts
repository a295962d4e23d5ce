import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * A document family that is in no corpus: a pet-insurance renewal notice, with qualifier labels
 * ("Premium (yearly)" beside "Premium (monthly)") and a label above its value.
 */
export async function petRenewalPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const page = doc.addPage([595, 842]);
  page.drawText('PAWSURE PET INSURANCE', { x: 50, y: 790, size: 16, font: bold });
  page.drawText('Renewal notice', { x: 50, y: 768, size: 12, font });
  const rows: Array<[string, string]> = [
    ['Policy holder', 'Margaret Okonkwo'],
    ['Pet name', 'Biscuit'],
    ['Policy number', 'PW-88213-K'],
    ['Renewal date', '14 March 2027'],
    ['Premium (monthly)', 'EUR 21.50'],
    ['Premium (yearly)', 'EUR 258.00'],
    ['Excess per claim', 'EUR 75.00'],
  ];
  rows.forEach(([label, value], i) => {
    page.drawText(label, { x: 50, y: 720 - i * 22, size: 11, font });
    page.drawText(value, { x: 260, y: 720 - i * 22, size: 11, font });
  });
  page.drawText('Your cover continues automatically unless you tell us otherwise before the renewal date.', { x: 50, y: 520, size: 9, font });
  return Buffer.from(await doc.save());
}

/** What the notice says, as extraction normalises it. */
export const PET_RENEWAL_EXPECTED: Record<string, string> = {
  policy_holder: 'Margaret Okonkwo',
  policy_number: 'PW-88213-K',
  renewal_date: '2027-03-14',
  yearly_premium: '258.00',
};

/**
 * A case type for the notice written before anyone saw one: each fact has the label a customer
 * would give it and one "bare" anchor that the notice does not print.
 */
export function petRenewalCaseType(anchors: Record<string, string[]> = {}): Record<string, unknown> {
  const fact = (fact_id: string, label: string, type: string, bare: string) => ({
    fact_id,
    label,
    type,
    required: true,
    document_kinds: ['renewal_notice'],
    anchors: [bare, ...(anchors[fact_id] ?? [])],
  });
  return {
    case_type_id: 'pet_renewal',
    name: 'Pet insurance renewal',
    operating_mode: 'system_of_action',
    facts: [
      fact('policy_holder', 'Policy holder', 'name', 'Insured name'),
      fact('policy_number', 'Policy number', 'id_number', 'Contract reference'),
      fact('renewal_date', 'Renewal date', 'date', 'Valid from'),
      fact('yearly_premium', 'Yearly premium', 'money', 'Annual cost'),
    ],
    workflow: {
      workflow_id: 'pet_renewal',
      nodes: [
        {
          node_id: 'documents',
          type: 'upload',
          title: 'Your renewal notice',
          documents: [{ document_kind: 'renewal_notice', label: 'Renewal notice', required: true, accept: ['application/pdf'], max_files: 1 }],
        },
        { node_id: 'review', type: 'review', title: 'Review' },
      ],
    },
  };
}

/** F1 of the facts found against the expected values (a wrong value is a false positive and a miss). */
export function factF1(found: ReadonlyArray<{ fact_id: string; value: string }>, expected: Record<string, string>): { precision: number; recall: number; f1: number } {
  const right = found.filter((f) => expected[f.fact_id] === f.value).length;
  const precision = found.length === 0 ? 0 : right / found.length;
  const recall = right / Object.keys(expected).length;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}
