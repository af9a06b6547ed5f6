/**
 * Loaded into the benchmarked server with `--import`: measures how long its event loop is held
 * up, and by what, so a slow `GET /login` can be told apart from a busy machine that did not run
 * the server.
 *
 * A 10 ms timer notes how late it fires (Node's monitorEventLoopDelay gives p50/p99/max), and for
 * every late turn over 40 ms (a stall) how long the main thread was on a CPU and how long it
 * waited for one, from /proc/thread-self/schedstat (Linux). A stall that is mostly waiting is the
 * machine running other processes; one that is mostly CPU is work the server did in one piece.
 * `maxCpuMs` is the most main-thread CPU between two turns of the timer: the longest the server
 * itself held the loop, whatever the machine's load. Garbage collection pauses are noted apart
 * (the longest, and their sum), since they hold the loop too but are no line of our code.
 *
 * On SIGUSR2 it writes what it saw since the last signal to the file in HEARTH_BENCH_LOOP_FILE
 * and starts again. Plain JavaScript, so the compiled server needs no TypeScript loader.
 */
import fs from 'node:fs';
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const file = process.env.HEARTH_BENCH_LOOP_FILE;

/** The main thread's time on a CPU and waiting for one, in ms (zeros where /proc has no schedstat). */
function threadTimes() {
  try {
    const [onCpu, waiting] = fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ').map(Number);
    return { cpuMs: onCpu / 1e6, waitMs: waiting / 1e6 };
  } catch {
    return { cpuMs: 0, waitMs: 0 };
  }
}

if (file) {
  const tickMs = 10;
  const stallMs = 40;
  const histogram = monitorEventLoopDelay({ resolution: tickMs });
  histogram.enable();
  let stalls = [];
  let maxCpuMs = 0;
  let windowStart = performance.now();
  let windowTimes = threadTimes();
  let lastTick = performance.now();
  let lastTimes = windowTimes;
  let sequence = 0;
  let gc = { maxMs: 0, totalMs: 0, maxKind: '' };
  const gcKinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks' };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.totalMs += entry.duration;
      if (entry.duration > gc.maxMs) gc = { ...gc, maxMs: entry.duration, maxKind: gcKinds[entry.detail?.kind] ?? 'other' };
    }
  }).observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const now = performance.now();
    const times = threadTimes();
    const cpuMs = times.cpuMs - lastTimes.cpuMs;
    maxCpuMs = Math.max(maxCpuMs, cpuMs);
    const late = now - lastTick - tickMs;
    if (late > stallMs && stalls.length < 500) {
      stalls.push({ atMs: Math.round(lastTick - windowStart), ms: Math.round(late), cpuMs: Math.round(cpuMs), waitMs: Math.round(times.waitMs - lastTimes.waitMs) });
    }
    lastTick = now;
    lastTimes = times;
  }, tickMs);
  timer.unref();
  // The histogram holds whole timer periods: the delay is what goes past the 10 ms.
  const ms = (nanoseconds) => Math.max(0, Math.round((nanoseconds / 1e6 - tickMs) * 100) / 100);
  process.on('SIGUSR2', () => {
    sequence += 1;
    const times = threadTimes();
    const report = {
      sequence,
      windowMs: Math.round(performance.now() - windowStart),
      samples: histogram.count,
      p50Ms: ms(histogram.percentile(50)),
      p99Ms: ms(histogram.percentile(99)),
      maxMs: ms(histogram.max),
      maxCpuMs: Math.round(maxCpuMs * 10) / 10,
      mainThreadCpuMs: Math.round(times.cpuMs - windowTimes.cpuMs),
      mainThreadWaitMs: Math.round(times.waitMs - windowTimes.waitMs),
      gcMaxMs: Math.round(gc.maxMs * 10) / 10,
      gcMaxKind: gc.maxKind,
      gcTotalMs: Math.round(gc.totalMs),
      stalls,
    };
    fs.writeFileSync(`${file}.part`, JSON.stringify(report));
    fs.renameSync(`${file}.part`, file);
    histogram.reset();
    stalls = [];
    maxCpuMs = 0;
    gc = { maxMs: 0, totalMs: 0, maxKind: '' };
    windowStart = performance.now();
    windowTimes = times;
  });
}
