// Numbers for people in the analysis views. A value that could not be computed shows "n/a" with its
// reason (as a tooltip, and listed under the table by NullNotes), never NaN.
import type { ReactNode } from 'react';
import { fmtPctValue } from '../../../common/export/format.js';

/** Tables in the analysis views: a little air between columns (plan-table alone packs them tight). */
export const TABLE_STYLE = { borderCollapse: 'separate', borderSpacing: '14px 3px', marginLeft: -14 } as const;

export const fmtPct = (x: number) => fmtPctValue(x);
export const fmtNum = (x: number) => (Number.isInteger(x) || Math.abs(x) >= 1000 ? String(Math.round(x * 100) / 100) : x.toPrecision(4));

/** Collects the reasons of the n/a values in one table. */
export class Reasons {
  readonly list = new Map<string, string[]>();
  add(reason: string | undefined, where: string) {
    if (!reason) return;
    const l = this.list.get(reason) ?? [];
    // One place once, however many of its fields share the reason.
    if (l.includes(where)) return;
    l.push(where);
    this.list.set(reason, l);
  }
}

/** A value, or n/a with why. `notes` gathers the reason for the table's footnote. */
export function V({ value, reason, fmt = fmtNum, notes, where = '' }: { value: number | null | undefined; reason?: string; fmt?: (x: number) => string; notes?: Reasons; where?: string }): ReactNode {
  if (value === null || value === undefined || !Number.isFinite(value)) {
    const why = reason ?? 'not computed';
    notes?.add(why, where);
    return (
      <span className="muted" title={why} data-null-reason={why}>
        n/a
      </span>
    );
  }
  return fmt(value);
}

export function NullNotes({ notes }: { notes: Reasons }) {
  if (!notes.list.size) return null;
  return (
    <ul className="small muted" data-testid="null-notes" style={{ margin: '6px 0 0', paddingLeft: 18 }}>
      {[...notes.list].map(([reason, where]) => (
        <li key={reason}>
          n/a: {reason}
          {where.filter(Boolean).length ? ` (${where.filter(Boolean).slice(0, 3).join('; ')}${where.length > 3 ? `; and ${where.length - 3} more` : ''})` : ''}
        </li>
      ))}
    </ul>
  );
}
