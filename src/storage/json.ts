/**
 * jsonb values are written as JSON text: node-postgres would turn a JS array into a PostgreSQL
 * array literal, not JSON.
 */
export function toJsonb(value: unknown): string {
  return JSON.stringify(value);
}
