// A number input that lets the user type freely: the text is kept locally, and only an acceptable
// value reaches the document. Otherwise the problem is shown under the field.
import { useEffect, useState } from 'react';
import { numberProblem } from '../views/designer/problems.js';

export interface NumberFieldProps {
  label: string;
  value: number;
  onChange(value: number): void;
  min?: number;
  max?: number;
  integer?: boolean;
  unit?: string;
  help?: string;
  /** A problem the document has with this field (e.g. warm-up ≥ repetitions). */
  problem?: string;
  testid?: string;
}

export function NumberField(p: NumberFieldProps) {
  const [text, setText] = useState(String(p.value));
  useEffect(() => {
    // Undo, redo and opening a file change the value from outside: show it.
    setText((t) => (Number(t) === p.value && t.trim() !== '' ? t : String(p.value)));
  }, [p.value]);
  const local = numberProblem(text, { min: p.min ?? 0, max: p.max ?? Number.MAX_SAFE_INTEGER, integer: p.integer ?? true });
  const problem = local ?? p.problem;
  return (
    <label className="field number" title={p.help}>
      <span>{p.label}</span>
      <span className="with-unit">
        <input
          inputMode="decimal"
          value={text}
          aria-invalid={!!problem}
          data-testid={p.testid}
          onChange={(e) => {
            setText(e.target.value);
            const bad = numberProblem(e.target.value, { min: p.min ?? 0, max: p.max ?? Number.MAX_SAFE_INTEGER, integer: p.integer ?? true });
            if (!bad && Number(e.target.value) !== p.value) p.onChange(Number(e.target.value));
          }}
        />
        {p.unit && <span className="unit">{p.unit}</span>}
      </span>
      {problem && (
        <span className="problem" data-testid={p.testid ? `${p.testid}-problem` : undefined}>
          {problem}
        </span>
      )}
    </label>
  );
}
