// What a file would run on a target beyond varlab's built-in tunables, as the user reads it before
// agreeing: every item whole (a long one scrolls, none is cut), control characters and bidirectional
// overrides written as visible escapes, so nothing in the text can hide the rest. Used by the notice
// on opening a file and by the Run view when a run asks (a journal's design, say).
import type { TrustCheck } from '../../../common/trust.js';
import { visible } from '../../../common/printable.js';

export function ConsentList({ check }: { check: TrustCheck }) {
  return (
    <ul data-testid="trust-commands" style={{ margin: '6px 0', paddingLeft: 18 }}>
      {check.commands.map((c, i) => (
        <li key={i} data-kind={c.kind}>
          {visible(c.summary)} <span className="muted small">({c.where})</span>
          <pre className="prewrap" style={{ margin: '2px 0', fontFamily: 'var(--mono)', fontSize: 12, maxHeight: '16em', overflow: 'auto' }}>
            {visible(c.command)}
          </pre>
        </li>
      ))}
    </ul>
  );
}
