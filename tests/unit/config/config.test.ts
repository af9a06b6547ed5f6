import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.js';

test('defaults match the documented configuration', () => {
  const config = loadConfig({}, '/srv/hearth');
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.port, 8888);
  assert.equal(config.ollamaHost, 'http://127.0.0.1:11434');
  // A login slides: it lasts while used, up to 30 idle days, with no fixed length unless asked for.
  assert.equal(config.sessionIdleDays, 30);
  assert.equal(config.sessionTtlHours, undefined);
  assert.equal(config.dataDir, path.resolve('/srv/hearth/data'));
  assert.equal(config.memoryFile, path.resolve('/srv/hearth/memory.md'));
  assert.equal(config.memoryMaxBytes, 2048);
  assert.equal(config.maxToolRounds, 10);
  assert.equal(config.tokensDir, path.resolve('/srv/hearth/tokens'));
  assert.equal(config.logLevel, 'info');
});

test('SESSION_TTL_HOURS, when set, still fixes how long a login lasts', () => {
  assert.equal(loadConfig({ SESSION_TTL_HOURS: '24' }).sessionTtlHours, 24);
  assert.equal(loadConfig({ SESSION_TTL_HOURS: '' }).sessionTtlHours, undefined);
  assert.equal(loadConfig({ SESSION_IDLE_DAYS: '7' }).sessionIdleDays, 7);
});

test('a bare host:port for OLLAMA_HOST is accepted, as Ollama itself does', () => {
  assert.equal(loadConfig({ OLLAMA_HOST: '192.168.1.5:11434' }).ollamaHost, 'http://192.168.1.5:11434');
});

const badValues: Array<[Record<string, string>, string, RegExp]> = [
  [{ PORT: 'eighty' }, 'PORT', /not a whole number/],
  [{ PORT: '70000' }, 'PORT', /out of range/],
  [{ SESSION_TTL_HOURS: '0' }, 'SESSION_TTL_HOURS', /out of range/],
  [{ SESSION_IDLE_DAYS: '0' }, 'SESSION_IDLE_DAYS', /out of range/],
  [{ SESSION_IDLE_DAYS: 'a month' }, 'SESSION_IDLE_DAYS', /not a whole number/],
  [{ OLLAMA_HOST: 'ftp://x' }, 'OLLAMA_HOST', /http or https/],
  [{ PASSWORD_HASH: 'hunter2' }, 'PASSWORD_HASH', /not a bcrypt hash/],
  [{ SECRET_KEY: 'short' }, 'SECRET_KEY', /at least 32/],
  [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /not one of/],
  [{ TLS_CERT: 'cert.pem' }, 'TLS_KEY', /set together/],
  [{ MEMORY_MAX_BYTES: '-5' }, 'MEMORY_MAX_BYTES', /whole number/],
  [{ MAX_TOOL_ROUNDS: '1000' }, 'MAX_TOOL_ROUNDS', /out of range/],
];

for (const [environment, variable, problem] of badValues) {
  test(`a bad ${variable} stops start-up with a message naming it`, () => {
    assert.throws(
      () => loadConfig(environment),
      (error: unknown) => error instanceof ConfigError && error.variable === variable && problem.test(error.message) && error.message.startsWith(variable),
    );
  });
}

test('MCP_CONFIG defaults to ./mcp.json beside the server, may point elsewhere, and may not be a folder', () => {
  assert.equal(loadConfig({}, '/srv/hearth').mcpConfig, path.resolve('/srv/hearth/mcp.json'));
  assert.equal(loadConfig({ MCP_CONFIG: 'config/servers.json' }, '/srv/hearth').mcpConfig, path.resolve('/srv/hearth/config/servers.json'));
  assert.throws(
    () => loadConfig({ MCP_CONFIG: os.tmpdir() }),
    (error: unknown) => error instanceof ConfigError && error.variable === 'MCP_CONFIG' && /is a folder/.test(error.message),
  );
});

test('no OpenAI-compatible server by default: Ollama alone, as before', () => {
  assert.deepEqual(loadConfig({}).openAiBackends, []);
});

test('OPENAI_BASE_URL adds one OpenAI-compatible server; a bare address gets /v1', () => {
  const [backend] = loadConfig({ OPENAI_BASE_URL: '192.168.1.50:8080', OPENAI_API_KEY: 'sk-local', OPENAI_NAME: 'llama.cpp box', OPENAI_VISION_MODELS: 'gemma-3, llava' }).openAiBackends;
  assert.deepEqual(backend, {
    id: 'openai',
    name: 'llama.cpp box',
    baseUrl: 'http://192.168.1.50:8080/v1',
    apiKey: 'sk-local',
    apiKeyVariable: 'OPENAI_API_KEY',
    visionModels: ['gemma-3', 'llava'],
  });
  const lmStudio = loadConfig({ OPENAI_BASE_URL: 'http://localhost:1234/v1/' }).openAiBackends[0]!;
  assert.equal(lmStudio.baseUrl, 'http://localhost:1234/v1');
  assert.equal(lmStudio.name, 'localhost:1234', 'named after its address when OPENAI_NAME is empty');
  assert.equal(lmStudio.apiKey, undefined);
});

test('OPENAI_BACKENDS lists several servers; keys are read from the variables it names', () => {
  const backends = loadConfig({
    OPENAI_BASE_URL: 'http://127.0.0.1:8080/v1',
    OPENAI_BACKENDS: JSON.stringify([
      { name: 'GPU box', baseUrl: 'http://192.168.1.50:8000/v1', apiKeyEnv: 'VLLM_KEY', visionModels: ['*'] },
      { id: 'lab', name: 'Lab cluster', baseUrl: 'https://vllm.lab.example/v1' },
    ]),
    VLLM_KEY: 'secret-from-env',
  }).openAiBackends;
  assert.deepEqual(
    backends.map((backend) => [backend.id, backend.name, backend.baseUrl, backend.apiKey, backend.apiKeyVariable, backend.visionModels]),
    [
      ['openai', '127.0.0.1:8080', 'http://127.0.0.1:8080/v1', undefined, undefined, []],
      ['gpu-box', 'GPU box', 'http://192.168.1.50:8000/v1', 'secret-from-env', 'VLLM_KEY', ['*']],
      ['lab', 'Lab cluster', 'https://vllm.lab.example/v1', undefined, undefined, []],
    ],
  );
});

const badOpenAiValues: Array<[Record<string, string>, string, RegExp]> = [
  [{ OPENAI_BASE_URL: 'ftp://box' }, 'OPENAI_BASE_URL', /http or https/],
  [{ OPENAI_BASE_URL: 'http://user:pw@box:8000/v1' }, 'OPENAI_BASE_URL', /plain address/],
  [{ OPENAI_API_KEY: 'sk-1' }, 'OPENAI_API_KEY', /OPENAI_BASE_URL is not/],
  [{ OPENAI_BACKENDS: '[{name: "x"}]' }, 'OPENAI_BACKENDS', /not valid JSON/],
  [{ OPENAI_BACKENDS: '{"name": "x"}' }, 'OPENAI_BACKENDS', /must be a JSON list/],
  [{ OPENAI_BACKENDS: '[{"name": "GPU box", "baseURL": "http://x/v1"}]' }, 'OPENAI_BACKENDS', /unknown key "baseURL"/],
  [{ OPENAI_BACKENDS: '[{"name": "GPU box"}]' }, 'OPENAI_BACKENDS', /"GPU box" needs a "baseUrl"/],
  [{ OPENAI_BACKENDS: '[{"name": "GPU box", "baseUrl": "file:///etc"}]' }, 'OPENAI_BACKENDS', /"GPU box": baseUrl "file:\/\/\/etc" must use http or https/],
  [{ OPENAI_BACKENDS: '[{"name": "A", "baseUrl": "http://a/v1"}, {"name": "a", "baseUrl": "http://b/v1"}]' }, 'OPENAI_BACKENDS', /id "a" is used twice/],
  [{ OPENAI_BACKENDS: '[{"name": "Box", "id": "Big Box", "baseUrl": "http://a/v1"}]' }, 'OPENAI_BACKENDS', /lowercase letters/],
  [{ OPENAI_BACKENDS: '[{"name": "Box", "baseUrl": "http://a/v1", "apiKeyEnv": "sk-abc123"}]' }, 'OPENAI_BACKENDS', /not the key itself/],
  [{ OPENAI_BACKENDS: '[{"name": "Box", "baseUrl": "http://a/v1", "apiKeyEnv": "BOX_KEY"}]' }, 'BOX_KEY', /is not set, but "Box"/],
];

for (const [environment, variable, problem] of badOpenAiValues) {
  test(`a bad ${variable} (${JSON.stringify(environment).slice(0, 60)}) stops start-up naming it`, () => {
    assert.throws(
      () => loadConfig(environment),
      (error: unknown) => error instanceof ConfigError && error.variable === variable && problem.test(error.message),
    );
  });
}

test('TLS is off by default; TLS=auto takes extra names, a set-up port (default 8880, or off) and MDNS', () => {
  const defaults = loadConfig({});
  assert.equal(defaults.tls, 'off');
  assert.deepEqual(defaults.tlsNames, []);
  assert.equal(defaults.setupPort, 8880);
  assert.equal(defaults.mdns, false);
  const auto = loadConfig({ TLS: 'AUTO', TLS_NAMES: 'Hearth.home.arpa, 192.168.1.50', SETUP_PORT: '80', MDNS: 'on' });
  assert.equal(auto.tls, 'auto');
  assert.deepEqual(auto.tlsNames, ['hearth.home.arpa', '192.168.1.50']);
  assert.equal(auto.setupPort, 80);
  assert.equal(auto.mdns, true);
  assert.equal(loadConfig({ TLS: 'auto', SETUP_PORT: 'off' }).setupPort, undefined);
});

const badTlsValues: Array<[Record<string, string>, string, RegExp]> = [
  [{ TLS: 'yes' }, 'TLS', /not auto or off/],
  [{ TLS: 'auto', TLS_CERT: 'cert.pem', TLS_KEY: 'key.pem' }, 'TLS', /leave TLS_CERT and TLS_KEY empty/],
  [{ TLS_NAMES: 'good.lan, bad name' }, 'TLS_NAMES', /not a host name/],
  [{ TLS: 'auto', PORT: '8443', SETUP_PORT: '8443' }, 'SETUP_PORT', /must differ from PORT/],
  [{ SETUP_PORT: 'eighty' }, 'SETUP_PORT', /not a whole number/],
  [{ MDNS: 'maybe' }, 'MDNS', /not on or off/],
];

for (const [environment, variable, problem] of badTlsValues) {
  test(`a bad ${variable} (${JSON.stringify(environment)}) stops start-up with a message naming it`, () => {
    assert.throws(
      () => loadConfig(environment),
      (error: unknown) => error instanceof ConfigError && error.variable === variable && problem.test(error.message),
    );
  });
}

test('backups: BACKUP_DIR defaults to ./backups with no daily backup; setting it turns the daily backup on; BACKUP_KEEP is checked', () => {
  const defaults = loadConfig({}, '/srv/hearth');
  assert.equal(defaults.backupDir, path.resolve('/srv/hearth/backups'));
  assert.equal(defaults.dailyBackups, false);
  assert.equal(defaults.backupKeep, 7);
  const daily = loadConfig({ BACKUP_DIR: '/mnt/usb/hearth', BACKUP_KEEP: '30' }, '/srv/hearth');
  assert.equal(daily.backupDir, path.resolve('/mnt/usb/hearth'));
  assert.equal(daily.dailyBackups, true);
  assert.equal(daily.backupKeep, 30);
  assert.throws(() => loadConfig({ BACKUP_KEEP: '0' }), (error: unknown) => error instanceof ConfigError && error.variable === 'BACKUP_KEEP');
  assert.throws(() => loadConfig({ BACKUP_KEEP: 'all' }), (error: unknown) => error instanceof ConfigError && error.variable === 'BACKUP_KEEP');
});
