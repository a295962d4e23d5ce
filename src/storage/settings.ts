import type { Executor } from './schema.ts';

export async function readSetting(db: Executor, name: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('name', '=', name).executeTakeFirst();
  return row?.value;
}

/** Stores `value` unless the setting exists; returns whichever value is stored, so concurrent starters agree. */
export async function insertSettingOnce(db: Executor, name: string, value: string, now: Date): Promise<string> {
  await db
    .insertInto('settings')
    .values({ name, value, updated_at: now })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const stored = await readSetting(db, name);
  if (stored === undefined) throw new Error(`setting ${name} vanished after insert`);
  return stored;
}

export async function writeSetting(db: Executor, name: string, value: string, now: Date): Promise<void> {
  await db
    .insertInto('settings')
    .values({ name, value, updated_at: now })
    .onConflict((oc) => oc.column('name').doUpdateSet({ value, updated_at: now }))
    .execute();
}

export async function deleteSetting(db: Executor, name: string): Promise<void> {
  await db.deleteFrom('settings').where('name', '=', name).execute();
}
