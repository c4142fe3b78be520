// The line at the bottom: the last error or notice. An invalid file's message names the JSON path.
import { useApp } from '../store/index.js';

export function StatusLine() {
  const status = useApp((s) => s.status);
  const setStatus = useApp((s) => s.setStatus);
  const dirty = useApp((s) => s.dirty);
  const path = useApp((s) => s.path);
  const doc = useApp((s) => s.doc);
  return (
    <footer className={`status ${status?.kind ?? ''}`} data-testid="status">
      <span className="status-text" data-testid="status-text" role={status?.kind === 'error' ? 'alert' : undefined}>
        {status?.text ?? ''}
      </span>
      {status && (
        <button className="link small" onClick={() => setStatus(null)} title="Dismiss">
          ✕
        </button>
      )}
      <span className="status-file muted">{doc ? `${path ?? 'not saved yet'}${dirty ? ' · modified' : ''}` : ''}</span>
    </footer>
  );
}
