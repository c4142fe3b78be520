// Window-wide behaviour: keyboard shortcuts, dropping a file onto the window, and the prompt
// before closing with unsaved changes.
import { useEffect } from 'react';
import { openCommand, openFile, save, saveAs } from '../store/actions.js';
import { useApp } from '../store/index.js';
import { commandFor, type Command } from './shortcuts.js';

function run(command: Command): void {
  const s = useApp.getState();
  if (command === 'save') void save();
  else if (command === 'save-as') void saveAs();
  else if (command === 'open') void openCommand();
  else if (command === 'undo') s.undo();
  else if (command === 'redo') s.redo();
}

export function useWindowEvents(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const command = commandFor(e);
      if (!command) return;
      // A dialog is open: leave its fields alone.
      if (useApp.getState().dialog || useApp.getState().prompts.length) return;
      e.preventDefault();
      run(command);
    };
    const onDragOver = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'copy';
        document.body.classList.add('dropping');
      }
    };
    const onDragLeave = (e: DragEvent) => {
      if (!e.relatedTarget) document.body.classList.remove('dropping');
    };
    const onDrop = (e: DragEvent) => {
      document.body.classList.remove('dropping');
      const file = e.dataTransfer?.files[0];
      if (!file) return;
      e.preventDefault();
      void openFile(file);
    };
    const onBeforeUnload = (e: BeforeUnloadEvent) => {
      if (!useApp.getState().dirty) return;
      e.preventDefault();
      // Older browsers and Electron want returnValue set to show the prompt.
      e.returnValue = '';
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('dragover', onDragOver);
    window.addEventListener('dragleave', onDragLeave);
    window.addEventListener('drop', onDrop);
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('dragover', onDragOver);
      window.removeEventListener('dragleave', onDragLeave);
      window.removeEventListener('drop', onDrop);
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, []);
}
