// Open in browser mode, where there is no native file dialog: type a path on the machine the
// backend runs on, pick a recent file, or choose a file in the browser (read here, checked by the
// backend through experiment.parse).
import { useState } from 'react';
import { openFile, openPath } from '../store/actions.js';
import { baseName } from '../store/doc.js';
import { useApp } from '../store/index.js';
import { Modal } from './Modal.js';

export function OpenDialog() {
  const dialog = useApp((s) => s.dialog);
  const recent = useApp((s) => s.recent);
  const setDialog = useApp((s) => s.setDialog);
  const [path, setPath] = useState('');
  if (dialog?.kind !== 'open') return null;
  const close = () => setDialog(null);
  return (
    <Modal title="Open experiment" onCancel={close} testid="open-dialog" wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (path.trim()) void openPath(path.trim(), { confirmed: true });
        }}
      >
        <label className="field">
          <span>Path on the backend's machine</span>
          <input value={path} onChange={(e) => setPath(e.target.value)} placeholder="/home/me/experiments/aslr.varlab.json" data-testid="open-path" spellCheck={false} />
        </label>
        <div className="buttons">
          <button type="button" onClick={close}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!path.trim()} data-testid="open-path-submit">
            Open
          </button>
        </div>
      </form>
      <h3>Recent</h3>
      {recent.length === 0 ? (
        <p className="muted">No recent files yet.</p>
      ) : (
        <ul className="recent">
          {recent.map((p) => (
            <li key={p}>
              <button className="link" onClick={() => void openPath(p, { confirmed: true })} title={p} data-testid="open-recent">
                {baseName(p)}
              </button>{' '}
              <span className="muted small">{p}</span>
            </li>
          ))}
        </ul>
      )}
      <h3>From this computer</h3>
      <input
        type="file"
        accept=".json,application/json"
        data-testid="open-file-input"
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) void openFile(file);
          e.target.value = '';
        }}
      />
      <p className="muted small">A file chosen here is opened without a path: use Save As to keep it on the backend's machine.</p>
    </Modal>
  );
}
