/**
 * How form answers are kept in `structured_inputs`. Every field type stores a string, except
 * `address`: an object of its parts (blank parts left out), so a customer's system reads the
 * postcode without parsing. Facts and gates compare text, so they read an address through
 * `answerText`: its parts joined with ", " in this order, the way a document prints it.
 */
export const ADDRESS_PARTS = ['line1', 'line2', 'town', 'postcode', 'country'] as const;
export type AddressPart = (typeof ADDRESS_PARTS)[number];
export type AddressAnswer = Partial<Record<AddressPart, string>>;

/** An address answer's parts, from the stored object or a pre-filled single string (taken as line 1). */
export function addressParts(value: unknown): AddressAnswer {
  if (typeof value === 'string') return value.trim() === '' ? {} : { line1: value };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  const out: AddressAnswer = {};
  for (const part of ADDRESS_PARTS) {
    const v = (value as Record<string, unknown>)[part];
    if (typeof v === 'string' && v.trim() !== '') out[part] = v.trim();
  }
  return out;
}

/** An answer as one line of text (what facts and `matches_input` compare); undefined when blank. */
export function answerText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const parts = addressParts(value);
    const text = ADDRESS_PARTS.map((p) => parts[p]).filter((p): p is string => p !== undefined).join(', ');
    return text === '' ? undefined : text;
  }
  return undefined;
}
