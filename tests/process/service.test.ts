import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startOllamaStandin } from '../support/ollama-standin.js';
import { freePort } from '../support/free-port.js';
import { childEnvironment, isRunning, portAnswers, root, startServer, waitForOutput } from '../support/server-process.js';

function serviceInstall(args: string[], environment: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/service-install.ts', ...args], {
    cwd: root,
    env: { ...childEnvironment(), HOME: os.homedir(), ...environment },
    encoding: 'utf8',
  });
}

/** The unit's [Service] settings as name → value. */
const settingsOf = (unit: string) => new Map(unit.split('\n').filter((line) => /^\w+=/.test(line)).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));

test('service:install --print gives a unit that runs this checkout with this Node and restarts on failure', () => {
  const printed = serviceInstall(['--print']);
  assert.equal(printed.status, 0, printed.stderr);
  const settings = settingsOf(printed.stdout);
  assert.equal(settings.get('WorkingDirectory'), root);
  assert.equal(settings.get('ExecStart'), `${process.execPath} ${root}/scripts/start.js`);
  assert.equal(settings.get('Restart'), 'on-failure');
  assert.equal(settings.get('KillSignal'), 'SIGTERM');
  assert.equal(settings.get('WantedBy'), 'default.target');
  assert.ok(Number(settings.get('TimeoutStopSec')) > 10, 'systemd waits longer than the server takes to save and close');
  assert.doesNotMatch(printed.stdout, /@[A-Z_]+@/, 'every placeholder is filled in');

  // systemd-analyze checks the syntax and that ExecStart is executable, where it is installed.
  const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  if (analyze.status === 0) {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-unit-'));
    try {
      fs.writeFileSync(path.join(folder, 'hearth.service'), printed.stdout);
      const verified = spawnSync('systemd-analyze', ['verify', path.join(folder, 'hearth.service')], { encoding: 'utf8' });
      assert.equal(verified.status, 0, verified.stderr);
      assert.equal(verified.stderr.trim(), '', 'no warnings');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }
});

test('service:install writes the unit under XDG_CONFIG_HOME and prints the enable and linger steps', (t) => {
  const configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-config-'));
  t.after(() => fs.rmSync(configHome, { recursive: true, force: true }));
  const installed = serviceInstall([], { XDG_CONFIG_HOME: configHome });
  assert.equal(installed.status, 0, installed.stderr);
  const unit = fs.readFileSync(path.join(configHome, 'systemd', 'user', 'hearth.service'), 'utf8');
  assert.equal(unit, serviceInstall(['--print']).stdout);
  assert.match(installed.stdout, /systemctl --user enable --now hearth/);
  assert.match(installed.stdout, /loginctl enable-linger/);
});

test("the unit's ExecStart, run as systemd would, serves and stops cleanly on SIGTERM", async (t) => {
  const printedUnit = serviceInstall(['--print']).stdout;
  const settings = settingsOf(printedUnit);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-'));
  const standin = await startOllamaStandin();
  const port = await freePort();
  t.after(async () => {
    await standin.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const command = settings.get('ExecStart')!.split(' ');
  assert.equal(settings.get('WorkingDirectory'), root, 'startServer runs in the same folder');
  const environment = Object.fromEntries([...printedUnit.matchAll(/^Environment=(\w+)=(.*)$/gm)].map((match) => [match[1], match[2]]));
  const service = startServer({ ...environment, PORT: String(port), DATA_DIR: dataDir, OLLAMA_HOST: standin.url, MEMORY_FILE: path.join(dataDir, 'memory.md') }, command);
  t.after(() => service.child.kill('SIGKILL'));
  // The first start after a source change builds dist/ first.
  await waitForOutput(service, /Hearth is running/, 120_000);
  assert.equal((await fetch(`http://127.0.0.1:${port}/login`)).status, 200);
  service.child.kill(settings.get('KillSignal') as NodeJS.Signals);
  assert.equal(await service.exited, 0, 'a clean stop: systemd does not count it as a failure to restart');
  assert.equal(isRunning(service.child.pid!), false);
  assert.equal(await portAnswers(port), false);
});
