import type { QueueCategory } from '../../../domain/cases/queue.ts';
import type { FactStatus, RuntimeStatus } from '../../../domain/cases/case-state.ts';
import type { Tone } from '../../ui/components.ts';

/** Tab names for the queue categories, in the order operators work them. */
export const CATEGORY_TABS: readonly { category: QueueCategory; text: string }[] = [
  { category: 'review', text: 'Review' },
  { category: 'exception', text: 'Exceptions' },
  { category: 'follow_up', text: 'Follow-up' },
  { category: 'processing', text: 'Processing' },
  { category: 'intake', text: 'Intake' },
  { category: 'done', text: 'Done' },
];

export const RUNTIME_STATUS_TEXT: Record<RuntimeStatus, string> = {
  intake_in_progress: 'Intake in progress',
  processing: 'Processing',
  gate_ready: 'Checks about to run',
  gate_evaluating: 'Checks running',
  ready_for_review: 'Ready for review',
  complete: 'Complete',
};

export const FACT_STATUS: Record<FactStatus, { text: string; tone: Tone }> = {
  resolved: { text: 'Resolved', tone: 'success' },
  needs_input: { text: 'Needs input', tone: 'warning' },
  failed: { text: 'Failed', tone: 'danger' },
  pending: { text: 'Pending', tone: 'neutral' },
};

export function caseStatusTone(status: string | null): Tone {
  if (status === 'approved' || status === 'decision_ready') return 'success';
  if (status === 'rejected') return 'danger';
  if (status === 'abandoned') return 'warning';
  return 'neutral';
}

/** "4 min", "3 h", "2 d": how long something has been waiting, in the largest whole unit. */
export function ageText(since: Date, now: Date): string {
  const minutes = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 60_000));
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

const MINUTES = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });
const SECONDS = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZone: 'UTC' });

/**
 * A timestamp as people read it, in UTC (the workspace has no time zone of its own): "29 Nov 2026,
 * 14:16 UTC", or to the second where seconds matter (delivery attempts). An ISO value is for machines.
 */
export function timeText(at: Date | string | null, precision: 'minute' | 'second' = 'minute'): string {
  if (at === null) return '';
  const d = typeof at === 'string' ? new Date(at) : at;
  return `${(precision === 'second' ? SECONDS : MINUTES).format(d)} UTC`;
}

export function humanize(code: string): string {
  const text = code.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
