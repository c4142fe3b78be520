// The Electron fuses of varlab's packaged app (https://www.electronjs.org/docs/latest/tutorial/fuses):
// switches compiled into the Electron binary that no command line, environment variable or file can
// turn back on. Packaging runs this once the app's Electron binary is in place, before signing:
//   tsx scripts/fuses.ts PATH_TO_THE_APP_BINARY [--asar]     (npm run fuses -- …)
// --asar when the app is packed into app.asar: then only that archive is loaded and its integrity is
// checked against the hash in the binary. Every fuse is set explicitly (strictlyRequireAllFuses), so an
// Electron upgrade that adds one fails here until someone decides it.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { flipFuses, FuseV1Options, FuseVersion } from '@electron/fuses';

/** Each fuse, and why it has this value. */
export function fuseSettings(asar: boolean): Record<keyof typeof FuseV1Options, { on: boolean; why: string }> {
  return {
    RunAsNode: { on: false, why: 'ELECTRON_RUN_AS_NODE would turn the app binary into a plain Node.js that runs any script' },
    EnableCookieEncryption: { on: true, why: 'the cookie store on disk is encrypted with the OS keychain' },
    EnableNodeOptionsEnvironmentVariable: { on: false, why: 'NODE_OPTIONS could load code into the main process (--require)' },
    EnableNodeCliInspectArguments: { on: false, why: '--inspect would open a debugger port into the main process' },
    EnableEmbeddedAsarIntegrityValidation: { on: asar, why: 'app.asar is checked against the hash built into the binary (packaged with asar)' },
    OnlyLoadAppFromAsar: { on: asar, why: 'only app.asar is loaded, never a loose app folder beside it (packaged with asar)' },
    LoadBrowserProcessSpecificV8Snapshot: { on: false, why: 'one V8 snapshot for every process: nothing to gain' },
    GrantFileProtocolExtraPrivileges: { on: false, why: 'the UI is served from app://, never file://: file pages get no extra privileges' },
    WasmTrapHandlers: { on: true, why: 'WebAssembly bounds checks by trap handlers, as Chromium ships them' },
  };
}

export async function applyFuses(binary: string, asar: boolean): Promise<number> {
  const settings = fuseSettings(asar);
  const config = { version: FuseVersion.V1, strictlyRequireAllFuses: true, resetAdHocDarwinSignature: process.platform === 'darwin' } as Parameters<typeof flipFuses>[1];
  for (const [name, s] of Object.entries(settings)) (config as unknown as Record<number, boolean>)[FuseV1Options[name as keyof typeof FuseV1Options]] = s.on;
  return flipFuses(binary, config);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const binary = args.find((a) => !a.startsWith('--'));
  if (!binary) {
    console.error('usage: tsx scripts/fuses.ts PATH_TO_THE_APP_BINARY [--asar]');
    process.exit(2);
  }
  if (!existsSync(binary)) {
    console.error(`fuses: no Electron binary at ${binary}`);
    process.exit(2);
  }
  const asar = args.includes('--asar');
  try {
    await applyFuses(binary, asar);
  } catch (e) {
    console.error(`fuses: ${(e as Error).message}`);
    process.exit(1);
  }
  for (const [name, s] of Object.entries(fuseSettings(asar))) console.log(`${s.on ? 'on ' : 'off'}  ${name}: ${s.why}`);
}
