/** Every database a test run creates on PostgreSQL starts with this, then the run's start in epoch seconds. */
export const TEST_DATABASE_PREFIX = 'dossier_test_';

/** The same server URL naming another database. */
export function databaseUrl(serverUrl: string, database: string): string {
  const u = new URL(serverUrl);
  u.pathname = `/${database}`;
  return u.toString();
}
