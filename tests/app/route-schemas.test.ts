/**
 * The route table, walked: every route says in a schema what it reads, every id in an address or
 * a form is a whole number from 1 up (anything else is a 400 that says so, never a 500 or a
 * guess), and every change in the logged-in scope needs the session's CSRF token without the
 * route asking for it.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { isRecordId } from '../../src/web/http/request-schemas.js';
import { buildTestApp, cookieHeader, csrfTokenFrom, type TestAppOptions } from '../support/test-app.js';

interface Route {
  method: string;
  url: string;
  schema: { params?: RouteSchema; querystring?: RouteSchema; body?: RouteSchema };
  reads: string;
}
interface RouteSchema {
  properties?: Record<string, unknown>;
}

const unsafeMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Routes that take a body but no fields: bytes, or nothing but the CSRF token. */
const fieldlessBodies: Record<string, string> = {
  'POST /attachments': 'the photo itself, as bytes',
  'PUT /attachments/:id/thumbnail': 'the small photo, as bytes',
  'POST /memory/versions/:id/restore': 'nothing but the CSRF token',
  'POST /logout': 'nothing but the CSRF token',
};
/** Wildcards of @fastify/static, which reads its own paths. */
const staticFiles = /^\/static\//;

const badIds = ['0', '-1', '1.5', 'abc', String(2 ** 53), '1e400', '-Infinity', '0x10'];

/** The app, logged in, with every route it registered (and those `options` add). */
async function routeTable(t: TestContext, options: TestAppOptions['dependencies'] = {}) {
  const routes: Route[] = [];
  const onRoute = (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      if (method === 'HEAD' || staticFiles.test(route.url)) continue;
      // Read when the test runs, after @fastify/websocket has moved a socket's handler aside.
      routes.push({
        method,
        url: route.url,
        get schema() {
          return (route.schema ?? {}) as Route['schema'];
        },
        get reads() {
          return `${String(route.handler)} ${String((route as { wsHandler?: unknown }).wsHandler ?? '')}`;
        },
      });
    }
  };
  const harness = await buildTestApp(t, { dependencies: { onRoute, ...options } });
  const cookies = await harness.login();
  const page = await harness.app.inject({ url: '/memory', headers: { cookie: cookies } });
  const cookie = cookieHeader(page.headers['set-cookie'], cookies);
  return { ...harness, routes, cookie, token: csrfTokenFrom(page.body) };
}

const key = (route: Route) => `${route.method} ${route.url}`;
const paramsOf = (url: string) => [...url.matchAll(/:(\w+)/g)].map((match) => match[1]!);
const idFields = (schema: RouteSchema | undefined) => Object.entries(schema?.properties ?? {}).filter(([, field]) => isRecordId(field)).map(([name]) => name);
const withParams = (url: string, value: string) => url.replace(/:\w+/g, encodeURIComponent(value));

test('every route declares a schema for the params, query and body it reads', async (t) => {
  const { routes } = await routeTable(t);
  assert.ok(routes.length >= 25, `the walk found the routes (${routes.length})`);
  const problems: string[] = [];
  for (const route of routes) {
    for (const name of paramsOf(route.url)) {
      if (!route.schema.params?.properties?.[name]) problems.push(`${key(route)}: no params schema for :${name}`);
    }
    if (/\.query\b/.test(route.reads) && !route.schema.querystring) problems.push(`${key(route)}: reads the query without a querystring schema`);
    if (['POST', 'PUT', 'PATCH'].includes(route.method) && !route.schema.body && !fieldlessBodies[key(route)]) problems.push(`${key(route)}: takes a body without a body schema`);
  }
  assert.deepEqual(problems, []);
  t.diagnostic(`${routes.length} routes walked`);
  // Every id the schemas declare, in an address or a form (probed below), is found.
  const ids = routes.flatMap((route) => [...idFields(route.schema.params), ...idFields(route.schema.querystring), ...idFields(route.schema.body)].map((name) => `${key(route)} ${name}`));
  assert.ok(ids.includes('GET /c/:id id') && ids.includes('GET /c/:id at') && ids.includes('POST /send conversationId') && ids.includes('GET /ws conversation'), ids.join('\n'));
});

test('bad ids (0, -1, 1.5, abc, 2^53, 1e400, -Infinity, 0x10) get a 400 naming the id, on every route with an id', async (t) => {
  const { app, routes, cookie, token } = await routeTable(t);
  const headers = { cookie, 'x-csrf-token': token, accept: 'application/json' };
  let probes = 0;
  const expectRefused = async (route: Route, request: { url: string; payload?: Record<string, string> }, what: string) => {
    const response = await app.inject({ method: route.method as 'GET', headers, ...request });
    probes++;
    assert.equal(response.statusCode, 400, `${key(route)} ${what}: ${response.body.slice(0, 200)}`);
    assert.match(response.json().error, new RegExp(`id in the (address|request) must be (empty or )?a whole number from 1 to 9007199254740991\\.`), `${key(route)} ${what}`);
  };
  for (const route of routes) {
    const paramIds = idFields(route.schema.params);
    for (const bad of paramIds.length > 0 ? badIds : []) await expectRefused(route, { url: withParams(route.url, bad) }, `:id=${bad}`);
    for (const name of idFields(route.schema.querystring)) {
      for (const bad of badIds) await expectRefused(route, { url: `${withParams(route.url, '1')}?${name}=${encodeURIComponent(bad)}` }, `?${name}=${bad}`);
    }
    for (const name of idFields(route.schema.body)) {
      for (const bad of badIds) await expectRefused(route, { url: withParams(route.url, '1'), payload: { [name]: bad } }, `form ${name}=${bad}`);
    }
  }
  assert.ok(probes >= 15 * badIds.length, `every id was probed (${probes} requests)`);
  t.diagnostic(`${probes} requests with bad ids, all 400`);
});

test('every change (POST, PUT, PATCH, DELETE) is refused without the session\'s CSRF token', async (t) => {
  const { app, routes, cookie } = await routeTable(t);
  const unsafe = routes.filter((route) => unsafeMethods.has(route.method));
  assert.ok(unsafe.length >= 12, `the walk found the changes (${unsafe.length})`);
  for (const route of unsafe) {
    // Everything else right: logged in, a valid id, a plausible form.
    const response = await app.inject({
      method: route.method as 'POST',
      url: withParams(route.url, '1'),
      headers: { cookie, accept: 'application/json' },
      payload: { password: 'x', title: 'x', content: 'x', tool: 'x', server: 'x', message: 'x' },
    });
    assert.equal(response.statusCode, 403, `${key(route)} without a token`);
  }
  t.diagnostic(`${unsafe.length} changes, all 403 without the token: ${unsafe.map(key).join(', ')}`);
});

test('a route added to the logged-in scope later, saying nothing about CSRF, is protected all the same', async (t) => {
  let changes = 0;
  const moreLoggedInRoutes = (scope: FastifyInstance) => {
    scope.post('/forgetful', async () => ({ changed: ++changes }));
    scope.delete<{ Params: { id: string } }>('/forgetful/:id', async () => ({ changed: ++changes }));
  };
  const { app, cookie, token } = await routeTable(t, { moreLoggedInRoutes });

  for (const [method, url] of [['POST', '/forgetful'], ['DELETE', '/forgetful/1']] as const) {
    const anonymous = await app.inject({ method, url, headers: { 'x-csrf-token': token } });
    assert.equal(anonymous.statusCode, 401, `${method} ${url} needs the login`);
    const noToken = await app.inject({ method, url, headers: { cookie, accept: 'application/json' } });
    assert.equal(noToken.statusCode, 403, `${method} ${url} without a token`);
    assert.match(noToken.json().error, /expired/);
    const wrongToken = await app.inject({ method, url, headers: { cookie, 'x-csrf-token': `${token}x` } });
    assert.equal(wrongToken.statusCode, 403, `${method} ${url} with a wrong token`);
    assert.equal(changes, 0, 'the handler never ran');
  }
  const withToken = await app.inject({ method: 'POST', url: '/forgetful', headers: { cookie, 'x-csrf-token': token } });
  assert.equal(withToken.statusCode, 200, 'the right token goes through: the refusals were about the token');
  const byForm = await app.inject({ method: 'DELETE', url: '/forgetful/1', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${encodeURIComponent(token)}` });
  assert.equal(byForm.statusCode, 200, 'a form\'s _csrf field counts too');
  assert.equal(changes, 2);
});
