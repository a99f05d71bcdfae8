/** Typed information operations (/gateway/Information.asmx). Each returns the Value of its envelope. */
import { dateMs, num, str, type AccountHandler } from './env';
import type { InboundRecord } from './model';
import type { CaptionMatch } from './options';
import { firstIndexAtOrAfter } from './store';
import { deliveryViews, hlrView, jobView, logView, receivedView, reportView, smsReceivedView } from './views';

const DAY_MS = 86_400_000;
export const MAX_DLR_LIMIT = 5000;

/** Jobs created between StartDate and EndDate (either may be "no date": no bound on that side). */
export const queryJobs: AccountHandler = (_env, state, p) => {
  const from = dateMs(p, 'StartDate') ?? -Infinity;
  const to = dateMs(p, 'EndDate') ?? Infinity;
  return state.jobs.filter((j) => j.createdAt >= from && j.createdAt <= to).map(jobView);
};

/**
 * The Caption of the two ...ByJobCaption queries is a "string filter" (spec) that matches the whole caption or,
 * in the emulator's prefix mode, every caption that starts with it: the real service's rule is not shown, and
 * nothing in the package may depend on either (docs/assumptions.md).
 */
export const captionMatches = (caption: string, filter: string, mode: CaptionMatch): boolean =>
  mode === 'prefix' ? caption.startsWith(filter) : caption === filter;

/** The newest job whose caption matches the filter, created since StartDate (default: 7 days back). */
export const queryJobInfoByJobCaption: AccountHandler = (env, state, p) => {
  const caption = str(p, 'Caption') ?? '';
  const since = dateMs(p, 'StartDate') ?? env.now - 7 * DAY_MS;
  for (let i = state.jobs.length - 1; i >= 0; i--) {
    const job = state.jobs[i]!;
    if (!captionMatches(job.caption, caption, env.captionMatch) || job.createdAt < since) continue;
    return {
      Job: jobView(job),
      Report: job.reports.map(reportView),
      Log: job.logs.map(logView),
      Received: state.inbound.filter((m) => m.jobId === job.id).map((m) => smsReceivedView(m, job.caption)),
      Status: 'Ok',
    };
  }
  return { Report: [], Log: [], Received: [], Status: 'JobNotFound' };
};

/** HLR results not yet collected, oldest first; they are marked collected. Limit 0 (or less) = all. */
export const queryNewHlrJobs: AccountHandler = (_env, state, p) => {
  const limit = num(p, 'Limit');
  const fresh = state.hlr.filter((h) => !h.collected);
  const picked = limit > 0 ? fresh.slice(0, limit) : fresh;
  for (const h of picked) h.collected = true;
  return picked.map(hlrView);
};

export const queryHlrJobsByJobId: AccountHandler = (_env, state, p) => {
  const jobId = num(p, 'JobID');
  return state.hlr.filter((h) => h.jobId === jobId).map(hlrView);
};

/** Delivery state of the listed jobs; ids that are unknown, foreign or have several recipients are skipped. */
export const queryReceivedDlrByJobId: AccountHandler = (env, state, p) => {
  const ids = (str(p, 'JobIdList') ?? '')
    .split(/[,;\s]+/)
    .filter((s) => /^\d+$/.test(s))
    .map(Number);
  return ids.flatMap((id) => {
    const job = env.store.jobs.get(id);
    if (!job || job.user !== state.account.user || job.recipients.length !== 1) return [];
    return deliveryViews(job);
  });
};

/** Delivery receipts with Date at or after StartDate, by date; Limit 0, negative or above 5000 means 5000. */
export const queryReceivedDlr: AccountHandler = (_env, state, p) => {
  const since = dateMs(p, 'StartDate');
  const requested = num(p, 'Limit');
  const limit = requested > 0 && requested < MAX_DLR_LIMIT ? requested : MAX_DLR_LIMIT;
  const start = since === null ? 0 : firstIndexAtOrAfter(state.reports, since);
  return state.reports.slice(start, start + limit).map(reportView);
};

/** Received messages since StartDate that reply to jobs whose caption matches the filter (empty: all). */
export const queryReceivedSmsByJobCaption: AccountHandler = (env, state, p) => {
  const caption = str(p, 'Caption') ?? '';
  const since = dateMs(p, 'StartDate') ?? -Infinity;
  const matches = (m: InboundRecord): boolean =>
    m.at >= since &&
    (caption === '' ||
      (m.jobId !== 0 &&
        captionMatches(env.store.jobs.get(m.jobId)?.caption ?? '', caption, env.captionMatch)));
  return state.inbound
    .filter(matches)
    .sort((a, b) => a.at - b.at || a.id - b.id)
    .map(receivedView);
};

/** Messages not yet collected (shared flag with GetNewRecivedSMS2); they are marked collected. */
export const queryReceivedNewSms: AccountHandler = (_env, state) => {
  const fresh = state.inbound.filter((m) => !m.collected);
  const out = fresh.map(receivedView);
  for (const m of fresh) m.collected = true;
  return out;
};

/** Balance in credits: jobs not yet sent are not charged. */
export const queryAccountBalance: AccountHandler = (_env, state) => state.account.balance;
