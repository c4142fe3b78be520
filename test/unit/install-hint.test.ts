// What a newcomer is told to install when no mysqld or mariadbd is found (issue 4, point 8).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freeName, installHint } from '../../src/node/quickstart.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const debian = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\nID=debian\n';
const ubuntu = 'NAME="Ubuntu"\nVERSION="22.04.4 LTS (Jammy Jellyfish)"\nID=ubuntu\nID_LIKE=debian\n';
const mint = 'NAME="Linux Mint"\nID=linuxmint\nID_LIKE="ubuntu debian"\n';
const fedora = 'NAME="Fedora Linux"\nVERSION="40 (Workstation Edition)"\nID=fedora\n';
const rocky = 'NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\n';
const arch = 'NAME="Arch Linux"\nPRETTY_NAME="Arch Linux"\nID=arch\n';
const manjaro = 'NAME="Manjaro Linux"\nID=manjaro\nID_LIKE=arch\n';
const nixos = 'NAME=NixOS\nID=nixos\n';

test('Debian and its derivatives are told to apt-get install mariadb-server', () => {
  for (const text of [debian, ubuntu, mint]) assert.equal(installHint('linux', text), 'Install MariaDB with: sudo apt-get install mariadb-server');
});

test('Fedora and RHEL-likes get dnf, Arch-likes get pacman, macOS gets brew', () => {
  assert.equal(installHint('linux', fedora), 'Install MariaDB with: sudo dnf install mariadb-server');
  assert.equal(installHint('linux', rocky), 'Install MariaDB with: sudo dnf install mariadb-server');
  assert.equal(installHint('linux', arch), 'Install MariaDB with: sudo pacman -S mariadb');
  assert.equal(installHint('linux', manjaro), 'Install MariaDB with: sudo pacman -S mariadb');
  assert.equal(installHint('darwin', null), 'Install MariaDB with Homebrew: brew install mariadb');
});

test('an unknown system gets a general sentence naming it, a missing os-release too', () => {
  assert.match(installHint('linux', nixos), /^No mysqld or mariadbd was found\. Install the MariaDB server \(or MySQL server\) package for nixos /);
  assert.match(installHint('linux', null), /package for this system with its package manager/);
});

test('the quickstart copy never overwrites a file: the next free name is taken', () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-freename-'));
  try {
    assert.equal(freeName(dir, 'quickstart'), join(dir, 'quickstart.varlab.json'));
    writeFileSync(join(dir, 'quickstart.varlab.json'), '{}');
    assert.equal(freeName(dir, 'quickstart'), join(dir, 'quickstart-2.varlab.json'));
    // A journal left by an earlier run counts as taken too: its restarts must not be resumed into a new file.
    writeFileSync(join(dir, 'quickstart-2.varlab.journal.jsonl'), '');
    assert.equal(freeName(dir, 'quickstart'), join(dir, 'quickstart-3.varlab.json'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
