// A modal dialog: a title, a body, buttons; Escape cancels. Focus goes to the first field so a
// dialog can be answered from the keyboard.
import { useEffect, useRef, type ReactNode } from 'react';

export function Modal(props: { title: string; onCancel: () => void; children: ReactNode; testid?: string; wide?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  // The latest onCancel, without re-running the effect (which would move the focus) on every render.
  const onCancel = useRef(props.onCancel);
  onCancel.current = props.onCancel;
  useEffect(() => {
    const first = ref.current?.querySelector<HTMLElement>('input, textarea, select, button.primary, button');
    first?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onCancel.current();
      }
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
  return (
    <div className="modal-backdrop">
      <div className={`modal${props.wide ? ' wide' : ''}`} role="dialog" aria-modal="true" aria-label={props.title} data-testid={props.testid} ref={ref}>
        <h2>{props.title}</h2>
        {props.children}
      </div>
    </div>
  );
}
