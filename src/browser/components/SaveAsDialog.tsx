// Save As in browser mode: a path on the backend's machine, suggested from the home directory and
// the experiment's name.
import { useState } from 'react';
import { saveTo } from '../store/actions.js';
import { useApp } from '../store/index.js';
import { Modal } from './Modal.js';

function SaveAsBody({ suggested, withoutResults }: { suggested: string; withoutResults?: boolean }) {
  const setDialog = useApp((s) => s.setDialog);
  const [path, setPath] = useState(suggested);
  const problem = !path.trim() ? 'type a path' : !path.trim().endsWith('.json') ? 'experiment files end in .varlab.json' : null;
  return (
    <Modal title={withoutResults ? 'Save as a new experiment' : 'Save experiment as'} onCancel={() => setDialog(null)} testid="save-as-dialog" wide>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (!problem) void saveTo(path.trim(), { withoutResults });
        }}
      >
        <label className="field">
          <span>Path on the backend's machine</span>
          <input value={path} onChange={(e) => setPath(e.target.value)} data-testid="save-path" spellCheck={false} />
        </label>
        {withoutResults && <p className="muted">The design alone: the new file starts without results.</p>}
        {problem && <p className="problem">{problem}</p>}
        <div className="buttons">
          <button type="button" onClick={() => setDialog(null)}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!!problem} data-testid="save-path-submit">
            Save
          </button>
        </div>
      </form>
    </Modal>
  );
}

export function SaveAsDialog() {
  const dialog = useApp((s) => s.dialog);
  return dialog?.kind === 'save-as' ? <SaveAsBody key={dialog.suggested} suggested={dialog.suggested} withoutResults={dialog.withoutResults} /> : null;
}
