import { throttling } from 'lighthouse/core/config/constants.js';

/*
 * Lighthouse simulates a phone as "this machine's CPU, 4 times slower". On a busy machine this
 * machine is itself slower, so the simulated phone is too (performance 87 under load, 96 quiet for
 * the same page). Lighthouse measures the CPU at the start of every run (its benchmark index); a
 * retry sets the slowdown from the last measure so that the simulated phone stays the same phone:
 * 4 x (index now / index of this machine when quiet), never more than Lighthouse's own 4. On a quiet
 * machine, or one faster than this one, that is exactly Lighthouse's default: the bar is not lowered.
 * Waiting for a quiet machine (by /proc/loadavg) was the other way: on a 2-core machine shared
 * by several test suites it may never come, and the load average lags by a minute.
 */
export const defaultSlowdown = throttling.mobileSlow4G.cpuSlowdownMultiplier;
/** Lighthouse's benchmark index on the 2-core development machine when nothing else runs. */
export const quietBenchmarkIndex = Number(process.env.LIGHTHOUSE_QUIET_BENCHMARK_INDEX) || 1500;

/** The CPU slowdown that makes a machine measuring `benchmarkIndex` simulate the default phone. */
export function calibratedSlowdown(benchmarkIndex: number): number {
  if (!(benchmarkIndex > 0)) return defaultSlowdown;
  return Math.max(1, defaultSlowdown * Math.min(1, benchmarkIndex / quietBenchmarkIndex));
}
