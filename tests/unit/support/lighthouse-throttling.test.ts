import assert from 'node:assert/strict';
import { test } from 'node:test';
import { calibratedSlowdown, defaultSlowdown, quietBenchmarkIndex } from '../../support/lighthouse-throttling.js';

test('Lighthouse on a busy machine simulates the same phone: the CPU slowdown shrinks with the measured CPU, never past the default', () => {
  assert.equal(defaultSlowdown, 4, "Lighthouse's own mobile slowdown");
  assert.equal(calibratedSlowdown(quietBenchmarkIndex), 4, 'a quiet machine runs at the default: the bar is not lowered');
  assert.equal(calibratedSlowdown(quietBenchmarkIndex * 2), 4, 'a faster machine is not slowed more than the default');
  assert.equal(calibratedSlowdown(quietBenchmarkIndex / 2), 2, 'half the CPU left over: half the slowdown');
  assert.equal(calibratedSlowdown(1), 1, 'never faster than the machine itself');
  assert.equal(calibratedSlowdown(0), 4, 'no measure: the default');
  assert.equal(calibratedSlowdown(Number.NaN), 4);
});
