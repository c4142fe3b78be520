// A question with several ways on (keep results in a copy or save as new, reload or keep edits):
// each button says what it does underneath. Escape or Cancel answers null.
import { useApp } from '../store/index.js';
import { Modal } from './Modal.js';

export function ChoiceDialog() {
  const dialog = useApp((s) => s.dialog);
  if (dialog?.kind !== 'choice') return null;
  return (
    <Modal title={dialog.title} onCancel={() => dialog.resolve(null)} testid={dialog.testid ?? 'choice-dialog'} wide>
      <p>{dialog.message}</p>
      {dialog.details && dialog.details.length > 0 && (
        <ul className="choice-details" data-testid="choice-details">
          {dialog.details.map((d) => (
            <li key={d}>{d}</li>
          ))}
        </ul>
      )}
      <div className="choices">
        {dialog.choices.map((c) => (
          <button key={c.id} className={`choice ${c.style ?? ''}`} onClick={() => dialog.resolve(c.id)} data-testid={`choice-${c.id}`}>
            <strong>{c.label}</strong>
            {c.hint && <small>{c.hint}</small>}
          </button>
        ))}
      </div>
      <div className="buttons">
        <button onClick={() => dialog.resolve(null)} data-testid="choice-cancel">
          Cancel
        </button>
      </div>
    </Modal>
  );
}
