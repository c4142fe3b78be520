// How each host of a run connects (issue 14, part 2): every host with its own key and known-hosts
// file, never the first host's for all. For each target, field by field, the first that says:
//
//   1. what the user gave for that target (`--target A --identity KA --target B --identity KB`),
//   2. what the user gave for every host (one `--identity`, the Run view's fields),
//   3. the target's entry in the Hosts list (hosts.json: the paths it was added or probed with),
//   4. nothing: the connection then uses ~/.ssh/config's IdentityFile for the alias, else the default keys.
//
// Only paths travel here (never a secret); host keys are always checked (the extra known-hosts file
// is added to the user's and varlab's own).
import type { TargetAuth } from '../../common/api.js';
import { listHosts } from '../host/profiles.js';

/** Fields that are set (an empty or undefined field does not hide the one below it). */
function given(auth: TargetAuth | undefined): TargetAuth {
  const out: TargetAuth = {};
  if (auth?.identity) out.identity = auth.identity;
  if (auth?.knownHosts) out.knownHosts = auth.knownHosts;
  if (auth?.acceptNewHostKey) out.acceptNewHostKey = true;
  return out;
}

/** Each target's own connection: the target's own options, then the shared ones, then its Hosts-list entry. */
export async function hostAuths(targets: string[], shared?: TargetAuth, perTarget?: Record<string, TargetAuth | undefined>): Promise<Map<string, TargetAuth | undefined>> {
  const known = new Map((await listHosts().catch(() => [])).map((h) => [h.target, h.auth]));
  const out = new Map<string, TargetAuth | undefined>();
  for (const t of targets) {
    const auth = { ...given(known.get(t)), ...given(shared), ...given(perTarget?.[t]) };
    out.set(t, Object.keys(auth).length ? auth : undefined);
  }
  return out;
}
