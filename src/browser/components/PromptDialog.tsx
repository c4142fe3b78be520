// Questions from the backend: accept an unknown host key (after comparing its fingerprint), or
// type a password or passphrase. The secret lives only in this component's state while the
// dialog is open and goes straight to `prompt.answer`; the store never sees it. In the desktop app
// the user may ask to keep it in the OS keychain (warned when that keychain is plain text).
import { useState } from 'react';
import type { Prompt } from '../../common/api.js';
import { answerPrompt } from '../store/actions.js';
import { useApp } from '../store/index.js';
import { Modal } from './Modal.js';

function PromptBody({ prompt }: { prompt: Prompt }) {
  const [secret, setSecret] = useState('');
  const [remember, setRemember] = useState(false);
  const asksSecret = prompt.kind === 'password' || prompt.kind === 'passphrase';
  // Only the desktop app has a keychain to keep a secret in; browser mode offers nothing to tick.
  const keychain = useApp((s) => s.info?.keychain ?? 'none');
  const canKeep = asksSecret && keychain !== 'none';
  const answer = (accept: boolean) => {
    const s = accept && asksSecret ? secret : undefined;
    setSecret('');
    void answerPrompt(prompt.id, accept, s, prompt.kind === 'host-key' || (canKeep && accept) ? remember : undefined);
  };
  return (
    <Modal title={prompt.title} onCancel={() => answer(false)} testid="prompt-dialog">
      <p className="prewrap">{prompt.message}</p>
      {prompt.fingerprint && (
        <p>
          Fingerprint: <code data-testid="prompt-fingerprint">{prompt.fingerprint}</code>
          <br />
          <small>Compare it with `ssh-keygen -lf` on the host before you accept.</small>
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          answer(true);
        }}
      >
        {asksSecret && (
          <label className="field">
            <span>{prompt.kind === 'password' ? 'Password' : 'Passphrase'}</span>
            <input type="password" autoComplete="off" value={secret} onChange={(e) => setSecret(e.target.value)} data-testid="prompt-secret" />
          </label>
        )}
        {canKeep && (
          <>
            <label className="check">
              <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} data-testid="prompt-keep" /> Remember in the keychain
            </label>
            {keychain === 'plain-text' && remember && (
              <p className="small" style={{ color: '#9a6700' }} data-testid="prompt-keychain-warning">
                This system&apos;s keychain stores it as plain text (no secret service such as GNOME Keyring or KWallet is running): anyone who can read your
                files can read it.
              </p>
            )}
          </>
        )}
        {prompt.kind === 'host-key' && (
          <label className="check">
            <input type="checkbox" checked={remember} onChange={(e) => setRemember(e.target.checked)} /> Remember this host key
          </label>
        )}
        <div className="buttons">
          <button type="button" onClick={() => answer(false)} data-testid="prompt-reject">
            {prompt.kind === 'host-key' ? 'Reject' : 'Cancel'}
          </button>
          <button type="submit" className="primary" data-testid="prompt-accept">
            {prompt.kind === 'host-key' ? 'Accept' : 'OK'}
          </button>
        </div>
      </form>
    </Modal>
  );
}

export function PromptDialog() {
  const prompt = useApp((s) => s.prompts[0]);
  // Keyed by id so a second prompt starts with an empty field.
  return prompt ? <PromptBody key={prompt.id} prompt={prompt} /> : null;
}
