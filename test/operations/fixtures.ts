/** A pay stub as plain text: the example income_verification case type extracts its facts. */
export const PAY_STUB = ['Earnings Statement', 'Employee name: Jane Doe', 'Pay date: 06/05/2026', 'Gross pay: $2,450.00'].join('\n');
