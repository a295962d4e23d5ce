import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../src/domain/connectors/templates.ts';

describe('action input templates with an address answer', () => {
  const context = {
    facts: new Map<string, string | null>(),
    inputs: { current_address: { line1: '12 High Street', town: 'Leeds', postcode: 'LS1 4AB' }, tags: ['a'] },
    case: { case_id: 'case_1', external_case_id: null } as never,
  };
  it('keeps the object for a whole placeholder and reads it as one line inside text', () => {
    expect(renderTemplate('{{inputs.current_address}}', context)).toEqual({ line1: '12 High Street', town: 'Leeds', postcode: 'LS1 4AB' });
    expect(renderTemplate('Lives at {{inputs.current_address}}.', context)).toBe('Lives at 12 High Street, Leeds, LS1 4AB.');
  });
});
