// Keyboard shortcuts for the common actions, as data: the key handler and the tooltips read the
// same table, so a tooltip never advertises a shortcut that does not work.

export type Command = 'save' | 'save-as' | 'open' | 'undo' | 'redo';

interface Binding {
  command: Command;
  key: string;
  shift: boolean;
}

const BINDINGS: Binding[] = [
  { command: 'save', key: 's', shift: false },
  { command: 'save-as', key: 's', shift: true },
  { command: 'open', key: 'o', shift: false },
  { command: 'undo', key: 'z', shift: false },
  { command: 'redo', key: 'z', shift: true },
  { command: 'redo', key: 'y', shift: false },
];

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/** The command a key press means (Ctrl on Linux and Windows, Cmd on a Mac), or null. */
export function commandFor(e: KeyLike): Command | null {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return null;
  const key = e.key.toLowerCase();
  return BINDINGS.find((b) => b.key === key && b.shift === e.shiftKey)?.command ?? null;
}

/** Read through globalThis so this module also loads in Node (unit tests) without DOM types. */
export function isMac(): boolean {
  const nav = (globalThis as { navigator?: { platform?: string } }).navigator;
  return /Mac|iPhone|iPad/.test(nav?.platform ?? '');
}

/** `Ctrl+Shift+S`, or `⌘⇧S` on a Mac; every binding of the command, for tooltips. */
export function shortcutLabel(command: Command, mac = isMac()): string {
  return BINDINGS.filter((b) => b.command === command)
    .map((b) => (mac ? `⌘${b.shift ? '⇧' : ''}${b.key.toUpperCase()}` : `Ctrl+${b.shift ? 'Shift+' : ''}${b.key.toUpperCase()}`))
    .join(' or ');
}

/** `Save (Ctrl+S)`. */
export function withShortcut(label: string, command: Command): string {
  return `${label} (${shortcutLabel(command)})`;
}
