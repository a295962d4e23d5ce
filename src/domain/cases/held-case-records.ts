/**
 * Rendered case records this process has served, held in memory with the revision they render
 * (issue 29). Served again only while the revision mirror (ports/case-revisions.ts) shows exactly
 * that revision, so the check costs an MGET batch instead of a database round trip. Bounded by
 * count and by characters (a record is 2–5 KB); the oldest goes first.
 */
export interface HeldCaseRecord {
  orgId: string;
  environment: string;
  revision: number;
  json: string;
}

export interface HeldCaseRecords {
  get(caseId: string): HeldCaseRecord | undefined;
  hold(caseId: string, record: HeldCaseRecord): void;
}

export function heldCaseRecords(maxEntries = 2_000, maxChars = 8_000_000): HeldCaseRecords {
  const records = new Map<string, HeldCaseRecord>();
  let chars = 0;
  const drop = (caseId: string) => {
    const held = records.get(caseId);
    if (!held) return;
    records.delete(caseId);
    chars -= held.json.length;
  };
  return {
    get: (caseId) => records.get(caseId),
    hold(caseId, record) {
      drop(caseId);
      if (record.json.length > maxChars / 4) return;
      while (records.size > 0 && (records.size >= maxEntries || chars + record.json.length > maxChars)) drop(records.keys().next().value as string);
      records.set(caseId, record);
      chars += record.json.length;
    },
  };
}
