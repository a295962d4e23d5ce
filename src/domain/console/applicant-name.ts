/** Answer keys that hold a person's whole name, in the order they are trusted. */
const NAME_KEYS = ['full_name', 'name', 'applicant_name', 'legal_name', 'customer_name'] as const;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/**
 * Who the applicant is, in words, from what they typed (or what the integrator prefilled): a
 * whole-name answer, else first and last names, else their email; null when the case says
 * nothing about them (a /process case), and the queue then shows the integrator's applicant id.
 */
export function applicantNameOf(answers: Record<string, unknown>, prefill: Record<string, unknown>): string | null {
  for (const source of [answers, prefill]) {
    for (const key of NAME_KEYS) {
      const name = text(source[key]);
      if (name) return name;
    }
    const parts = [text(source.first_name) ?? text(source.given_name), text(source.last_name) ?? text(source.family_name)].filter(Boolean);
    if (parts.length > 0) return parts.join(' ');
  }
  return text(answers.email) ?? text(prefill.email);
}
