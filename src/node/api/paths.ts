// Which files and folders a request may read or write (issue 13, Electron). Every path argument of
// the API is listed in PATH_ARGS and checked here before its handler runs, so a renderer that is not
// ours any more (an XSS, a hostile page) cannot read ~/.ssh or write varlab's own consent records:
//
// - Never inside varlab's own state (varlabHome(): consent records, server profiles, known_hosts,
//   keychain blobs, recent files) or ~/.ssh, whoever names them; symlinks are resolved first.
// - In the desktop app, only what the user picked in a native dialog in this session (dialog.open,
//   dialog.save), recent files (opened or saved before), varlab's own documents folder (the
//   quickstart's, where unsaved documents export too: AppInfo.documents), and the export folder the
//   UI proposes beside an allowed experiment file (`<name>-export`, and the files in it).
// - In browser mode there are no native dialogs, and a registration call would come from the same
//   page that names the path: the page holding the per-launch token is the user's own agent (the
//   bridge refuses every other page), so a path typed into its Open, Save As or export field counts
//   as picked. The refusals of the first point still apply.
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { ApiError, type ArgsOf, type Method } from '../../common/api.js';
import { recentFiles, varlabHome } from '../files.js';
import { defaultQuickstartDir } from '../quickstart.js';

export type Access = 'read' | 'write';
export type PathKind = 'file' | 'folder';

interface PathArg {
  arg: string;
  access: Access;
  kind: PathKind;
  /** Absent is fine (the handler has a default or another source). */
  optional?: boolean;
}

/** Every argument of the API that names a file or folder on the backend's machine. */
export const PATH_ARGS: { [M in Method]?: PathArg[] } = {
  'experiment.open': [{ arg: 'path', access: 'read', kind: 'file' }],
  'experiment.save': [{ arg: 'path', access: 'write', kind: 'file' }],
  'experiment.readSql': [{ arg: 'path', access: 'read', kind: 'file' }],
  'export.writeFile': [{ arg: 'path', access: 'write', kind: 'file' }],
  'export.plots': [
    { arg: 'dir', access: 'write', kind: 'folder' },
    { arg: 'path', access: 'read', kind: 'file', optional: true },
  ],
  'export.csv': [
    { arg: 'dir', access: 'write', kind: 'folder' },
    { arg: 'path', access: 'read', kind: 'file', optional: true },
  ],
  'trust.check': [{ arg: 'path', access: 'read', kind: 'file', optional: true }],
  'trust.grant': [{ arg: 'path', access: 'read', kind: 'file', optional: true }],
  // A run writes its results into the file (and its journal beside it).
  'run.start': [{ arg: 'path', access: 'write', kind: 'file' }],
  'run.check': [{ arg: 'path', access: 'read', kind: 'file' }],
  // Following a detached run writes its results into the file; its status only reads the journal.
  'run.attach': [{ arg: 'path', access: 'write', kind: 'file' }],
  'run.detachedStatus': [{ arg: 'path', access: 'read', kind: 'file' }],
  'local.quickstart': [{ arg: 'dir', access: 'write', kind: 'folder', optional: true }],
};

export interface PathPolicy {
  /** The user picked this in a native dialog: it may be read, and written when picked for that. */
  picked(path: string, access: Access, kind: PathKind): void;
  /** The request's arguments with each path made absolute, or an ApiError naming the refused path. */
  checkArgs<M extends Method>(method: M, args: ArgsOf<M>): Promise<ArgsOf<M>>;
}

const inside = (path: string, folder: string) => path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);

/** The path with every symlink resolved, as far as it exists (a file about to be written does not). */
async function realTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : join(await realTarget(parent), basename(path));
  }
}

/** `run.varlab.json` → `run-export`: the folder the export bar proposes beside an experiment file. */
export function exportFolderName(file: string): string {
  return `${basename(file).replace(/\.varlab\.json$|\.json$/i, '')}-export`;
}

export function createPathPolicy(opts: { pickedOnly: boolean }): PathPolicy {
  const grants = new Map<string, { access: Access; kind: PathKind }>();

  /** varlab's own state and the user's SSH keys: never on a request. */
  const forbidden = async () => [
    { folder: await realTarget(varlabHome()), what: "varlab's own settings (consent, server profiles, known hosts, keychain)" },
    { folder: await realTarget(join(homedir(), '.ssh')), what: 'your SSH folder' },
  ];
  /** The folder varlab itself writes the user's documents into (experiments, and the exports of unsaved ones). */
  const ownFolders = async () => [await realTarget(defaultQuickstartDir())];

  const granted = (path: string, access: Access, kind: PathKind) => {
    for (const [p, g] of grants) {
      if (access === 'write' && g.access !== 'write') continue;
      if (p === path && (g.kind === kind || g.kind === 'folder')) return true;
      if (g.kind === 'folder' && inside(path, p)) return true;
    }
    return false;
  };

  /** Picked, recent, or the export folder beside one of those. */
  async function allowed(path: string, access: Access, kind: PathKind): Promise<boolean> {
    if (granted(path, access, kind)) return true;
    const recent = (await recentFiles()).map((f) => resolve(f));
    if (kind === 'file' && recent.includes(path)) return true;
    const folder = kind === 'folder' ? path : dirname(path);
    const beside = [...recent, ...[...grants.keys()]].filter((f) => dirname(f) === dirname(folder));
    return access === 'write' && beside.some((f) => exportFolderName(f) === basename(folder));
  }

  async function check(path: string, access: Access, kind: PathKind): Promise<string> {
    const abs = resolve(path);
    const real = await realTarget(abs);
    if ((await ownFolders()).some((f) => inside(real, f))) return abs;
    const refused = (await forbidden()).find((f) => inside(real, f.folder) || inside(abs, f.folder));
    if (refused) throw new ApiError('path-refused', `refused: ${abs} is in ${refused.what} (${refused.folder}), which varlab never reads or writes on a request`);
    if (!opts.pickedOnly) return abs;
    if ((await allowed(abs, access, kind)) || (real !== abs && (await allowed(real, access, kind)))) return abs;
    const how = kind === 'folder' ? 'Choose… beside the folder field' : access === 'write' ? 'Save As…' : 'Open…';
    throw new ApiError(
      'path-refused',
      `refused: ${abs} was not chosen in a dialog. The desktop app ${access === 'write' ? 'writes' : 'reads'} only files and folders you pick (${how}), your recent files and its own folders.`,
    );
  }

  return {
    picked(path, access, kind) {
      const abs = resolve(path);
      const old = grants.get(abs);
      grants.set(abs, { access: old?.access === 'write' ? 'write' : access, kind });
    },
    async checkArgs(method, args) {
      const wanted = PATH_ARGS[method];
      if (!wanted) return args;
      const out = { ...(args as Record<string, unknown>) };
      for (const w of wanted) {
        const value = out[w.arg];
        if (value === undefined && w.optional) continue;
        if (typeof value !== 'string' || !value.trim()) throw new ApiError('invalid-argument', `${method}: ${w.arg} must be a path`);
        if (!isAbsolute(value) && opts.pickedOnly) throw new ApiError('invalid-argument', `${method}: ${w.arg} must be an absolute path, got ${JSON.stringify(value)}`);
        out[w.arg] = await check(value, w.access, w.kind);
      }
      return out as typeof args;
    },
  };
}
