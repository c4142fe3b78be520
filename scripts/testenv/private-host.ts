// A private host for one test file: a mount namespace in which every host file varlab sets (ASLR, THP,
// the governor, turbo: HOST_FILES) and its record folder (/var/lib/varlab) are the file's own copies,
// bind-mounted over the real paths. Everything the file starts (its sshd, what that sshd runs, a
// mariadbd, a detached runner, Chromium) inherits the namespace, so runs of several files at once set
// and verify their own settings, as on separate hosts, and never the machine's. What varlab does on a
// host is unchanged: the same paths, read and written by the same scripts; only the kernel's parsing of
// a write is not there (the copies are plain files), which the real-host files of the suite keep.
//
// `npx tsx scripts/testenv/private-host.ts` prints the shell script; run it as
//   unshare --mount --propagation private -- sh -c SCRIPT private-host DIR COMMAND ARGS…
// DIR (created by the caller, root's) holds the copies; COMMAND then runs in the namespace.
import { pathToFileURL } from 'node:url';
import { HOST_FILES } from '../../src/common/tunables/registry.js';
import { DEFAULT_HOST_PATHS } from '../../src/node/host/script.js';

const ROOTS = { sys: DEFAULT_HOST_PATHS.sys, 'proc-sys': DEFAULT_HOST_PATHS.procSys } as const;

/** The real host files, as shell words: a per-CPU file is a glob (cpu*), expanded by the shell. */
export const PRIVATE_FILES = HOST_FILES.map((f) => `${ROOTS[f.root]}/${f.path}`);

export const PRIVATE_HOST_SCRIPT = [
  'set -eu',
  'd=$1; shift',
  // A copy of each file that exists here, with what the kernel holds now, mounted over it.
  `for f in ${PRIVATE_FILES.join(' ')}; do`,
  '  [ -f "$f" ] || continue',
  '  mkdir -p "$d/files${f%/*}"',
  '  cat "$f" > "$d/files$f"',
  '  mount --bind "$d/files$f" "$f"',
  'done',
  // The restore records and the host lock: an empty folder of the file's own (root's, 755 as varlab makes it).
  `mkdir -p ${DEFAULT_HOST_PATHS.records} "$d/records"`,
  'chmod 755 "$d" "$d/records"',
  `mount --bind "$d/records" ${DEFAULT_HOST_PATHS.records}`,
  'exec "$@"',
].join('\n');

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.stdout.write(PRIVATE_HOST_SCRIPT + '\n');
