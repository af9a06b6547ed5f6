import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitToContext, imageTokens } from '../../../../src/engine/llm/history.js';
import { smallJpeg } from '../../../support/test-photos.js';

test('photos count against the context window: older turns with photos give way to the newest', () => {
  const system = { role: 'system' as const, content: 'system prompt' };
  const photo = smallJpeg.toString('base64');
  const turns = Array.from({ length: 10 }, (_, index) => ({
    role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `turn ${index}`,
    ...(index % 2 === 0 ? { images: [photo, photo] } : {}),
  }));
  const fitted = fitToContext(system, turns, 8192, 1024);
  const images = fitted.reduce((sum, turn) => sum + (turn.images?.length ?? 0), 0);
  assert.ok(images * imageTokens <= 8192 - 1024, `${images} photos fit`);
  assert.ok(fitted.length < turns.length + 1, 'older turns were left out');
  assert.deepEqual(fitted.at(-2)!.images, [photo, photo], 'the newest photos are kept');
});
