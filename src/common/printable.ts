// Text from files (cell ids, query names, file names) shown on a terminal: control characters and
// bidirectional overrides are written as \u escapes, so a label cannot move the cursor, recolour
// the screen or reorder what is read. Escaped this way, JSON stays valid JSON with the same strings.

const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with every control character but tab and newline written as `\u001b`. */
export function visible(text: string): string {
  return text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
