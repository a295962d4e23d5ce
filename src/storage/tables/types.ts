import type { ColumnType } from 'kysely';

/** timestamptz: read as Date, written as Date or ISO text. */
export type Timestamp = ColumnType<Date, Date | string, Date | string>;

/** jsonb: read as the parsed value, written as its JSON text (pg serialises objects itself). */
export type Json<T> = ColumnType<T, T | string, T | string>;
