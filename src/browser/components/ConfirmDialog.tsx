// "Discard unsaved changes?" and the like: the store holds the question and the resolver.
import { useApp } from '../store/index.js';
import { Modal } from './Modal.js';

export function ConfirmDialog() {
  const dialog = useApp((s) => s.dialog);
  if (dialog?.kind !== 'confirm') return null;
  return (
    <Modal title={dialog.title} onCancel={() => dialog.resolve(false)} testid="confirm-dialog">
      <p>{dialog.message}</p>
      <div className="buttons">
        <button onClick={() => dialog.resolve(false)}>Cancel</button>
        <button className="danger" data-testid="confirm-yes" onClick={() => dialog.resolve(true)}>
          {dialog.yes}
        </button>
      </div>
    </Modal>
  );
}
