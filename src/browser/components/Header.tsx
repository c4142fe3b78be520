// The header: the experiment's name (editable), file and history commands with their shortcuts in
// tooltips, and the views.
import { openCommand, save, saveAs } from '../store/actions.js';
import { useApp, type View } from '../store/index.js';
import { withShortcut } from './shortcuts.js';

export const VIEWS: { id: View; label: string; needsDoc: boolean }[] = [
  { id: 'design', label: 'Design', needsDoc: true },
  { id: 'plan', label: 'Plan', needsDoc: true },
  { id: 'run', label: 'Run', needsDoc: false },
  { id: 'analysis', label: 'Analysis', needsDoc: true },
  { id: 'compare', label: 'Compare', needsDoc: false },
  { id: 'hosts', label: 'Hosts', needsDoc: false },
];

export function Header() {
  const doc = useApp((s) => s.doc);
  const dirty = useApp((s) => s.dirty);
  const canUndo = useApp((s) => s.history.past.length > 0);
  const canRedo = useApp((s) => s.history.future.length > 0);
  const view = useApp((s) => s.view);
  const { edit, undo, redo, setView } = useApp.getState();
  return (
    <header className="header">
      <div className="brand">varlab</div>
      {doc && (
        <div className="title">
          <input
            className="name"
            value={doc.name}
            size={Math.min(80, Math.max(16, doc.name.length + 2))}
            aria-label="Experiment name"
            aria-invalid={!doc.name.trim()}
            title={doc.name.trim() ? 'Experiment name' : 'An experiment needs a name'}
            data-testid="experiment-name"
            onChange={(e) => {
              const name = e.target.value;
              edit((d) => ({ ...d, name }), 'name');
            }}
          />
          {dirty && (
            <span className="dirty" title="Modified since it was last saved" data-testid="dirty">
              ●
            </span>
          )}
        </div>
      )}
      <nav className="tools">
        <button onClick={() => void openCommand()} title={withShortcut('Open', 'open')} data-testid="open">
          Open
        </button>
        <button onClick={() => void save()} disabled={!doc} title={withShortcut('Save', 'save')} data-testid="save">
          Save
        </button>
        <button onClick={() => void saveAs()} disabled={!doc} title={withShortcut('Save As', 'save-as')} data-testid="save-as">
          Save As
        </button>
        <span className="sep" />
        <button onClick={undo} disabled={!canUndo} title={withShortcut('Undo', 'undo')} data-testid="undo">
          ↶ Undo
        </button>
        <button onClick={redo} disabled={!canRedo} title={withShortcut('Redo', 'redo')} data-testid="redo">
          ↷ Redo
        </button>
      </nav>
      <nav className="views" role="tablist">
        {VIEWS.map((v) => (
          <button
            key={v.id}
            role="tab"
            aria-selected={view === v.id}
            className={view === v.id ? 'active' : ''}
            onClick={() => setView(v.id)}
            data-testid={`nav-${v.id}`}
          >
            {v.label}
          </button>
        ))}
      </nav>
    </header>
  );
}
