/*
 * npm run service:install: writes a systemd user unit for this checkout to
 * ~/.config/systemd/user/hearth.service (from deploy/hearth.service, with this Node and this folder
 * filled in) and prints the commands that start it now and at every boot. `-- --print` only prints it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/config/project-root.js';

/** The unit file text for a checkout in workingDirectory run by the node binary at nodePath. */
function unitFileText(template: string, nodePath: string, workingDirectory: string): string {
  // systemd splits ExecStart on spaces; a path with spaces or specials would need quoting rules of its own.
  for (const [name, value] of [['Node', nodePath], ['the Hearth folder', workingDirectory]] as const) {
    if (!/^\/[\w./@+-]+$/.test(value)) throw new Error(`${name} is at ${value}: move it to a path without spaces or special characters, or write the unit by hand`);
  }
  return template.replaceAll('@NODE@', nodePath).replaceAll('@WORKING_DIRECTORY@', workingDirectory);
}

function main(): number {
  const { values } = parseArgs({ options: { print: { type: 'boolean', default: false } } });
  const template = fs.readFileSync(path.join(projectRoot, 'deploy', 'hearth.service'), 'utf8');
  const unit = unitFileText(template, process.execPath, projectRoot);
  if (values.print) {
    process.stdout.write(unit);
    return 0;
  }
  const configHome = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  const target = path.join(configHome, 'systemd', 'user', 'hearth.service');
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, unit);
  console.log(`Wrote ${target}`);
  console.log(`
Start it now and at every login:
  systemctl --user daemon-reload
  systemctl --user enable --now hearth

Keep it running when you are logged out, and start it at boot (once, may ask for your password):
  sudo loginctl enable-linger ${os.userInfo().username}

Logs: journalctl --user -u hearth -f      Stop: systemctl --user stop hearth
After a git pull, restart it (it rebuilds itself): systemctl --user restart hearth`);
  return 0;
}

try {
  process.exit(main());
} catch (error) {
  console.error(`service:install: ${(error as Error).message}`);
  process.exit(1);
}
