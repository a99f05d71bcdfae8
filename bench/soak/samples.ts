/** The soak's samples of the Node-RED process and what they say about growth. */

export interface Sample {
  atS: number;
  /** Sends plus inbound messages so far. */
  messages: number;
  heapUsed: number;
  heapTotal: number;
  rss: number;
  external: number;
  fds: number;
  cpuUs: number;
  uptimeS: number;
  /** Sizes of the files in the user directory (poller state, outbox journal, flows). */
  files: Record<string, number>;
}

export interface Growth {
  /** Samples after warm-up (the first fifth of the run, at least one minute) that the slopes are fitted to. */
  samples: number;
  /** Least-squares slope of the heap after GC, bytes per 1,000 messages. */
  heapPer1000: number;
  rssPer1000: number;
  heapMinMB: number;
  heapMaxMB: number;
  fdsMin: number;
  fdsMax: number;
  /** Largest size each file reached, and its size at the end. */
  files: Record<string, { max: number; last: number }>;
  cpuMsPerMessage: number;
}

function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export function growthPer1000(samples: Sample[]): Growth {
  const last = samples[samples.length - 1];
  const warm = Math.max(60, (last?.atS ?? 0) / 5);
  const after = samples.filter((s) => s.atS >= warm);
  const xs = after.map((s) => s.messages);
  const files: Growth['files'] = {};
  for (const s of samples)
    for (const [f, size] of Object.entries(s.files)) {
      const e = (files[f] ??= { max: 0, last: 0 });
      e.max = Math.max(e.max, size);
    }
  // a file gone by the end (a temp file of an atomic write) ends at 0
  for (const [f, e] of Object.entries(files)) e.last = last?.files[f] ?? 0;
  const first = after[0];
  return {
    samples: after.length,
    heapPer1000: Math.round(
      slope(
        xs,
        after.map((s) => s.heapUsed),
      ) * 1000,
    ),
    rssPer1000: Math.round(
      slope(
        xs,
        after.map((s) => s.rss),
      ) * 1000,
    ),
    heapMinMB: Math.min(...after.map((s) => s.heapUsed)) / 1048576,
    heapMaxMB: Math.max(...after.map((s) => s.heapUsed)) / 1048576,
    fdsMin: Math.min(...after.map((s) => s.fds)),
    fdsMax: Math.max(...after.map((s) => s.fds)),
    files,
    cpuMsPerMessage:
      first && last && last.messages > first.messages
        ? (last.cpuUs - first.cpuUs) / 1000 / (last.messages - first.messages)
        : 0,
  };
}
