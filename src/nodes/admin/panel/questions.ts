/**
 * Open questions of the ask nodes: code, step, who holds it now, time left; Cancel closes one as msg.ask.cancel
 * with its id would (the ask node's second output gets nothing; the on-call list is told if the node says so).
 */
import { AskHub } from '../../ask/hub';
import { newQuestionId } from '../../ask/engine';
import { stepIndex, totalSteps, type Question } from '../../ask/question';
import { panelChanged } from './live';
import type { PanelContext, PanelSection } from './registry';

function row(q: Question, ctx: PanelContext): Record<string, unknown> {
  const step = Math.max(0, q.step);
  const holder = q.numbers[stepIndex(q, step)];
  const ends = q.state === 'open' && q.step >= 0 ? q.stepAt + q.settings.waitMs : undefined;
  return {
    id: q.id,
    code: q.code ?? '',
    node: q.node,
    ...(q.topic !== undefined ? { topic: q.topic } : {}),
    question: q.question,
    step: step + 1,
    steps: totalSteps(q),
    ...(holder !== undefined ? { holder: ctx.shown(holder) } : {}),
    ...(ends !== undefined ? { leftMs: Math.max(0, ends - ctx.now) } : {}),
  };
}

export const questionsSection: PanelSection = {
  name: 'questions',
  data(ctx) {
    const hub = AskHub.existing(ctx.config);
    if (!hub) return { enabled: false, questions: [] };
    return {
      enabled: true,
      // Under Redis only the instance holding the inbound lease knows the questions.
      holding: hub.engine.holding,
      canCancel: ctx.canWrite,
      questions: hub.engine
        .open()
        .sort((a, b) => a.createdAt - b.createdAt)
        .map((q) => row(q, ctx)),
    };
  },
  actions: {
    async cancel(ctx, body) {
      const hub = AskHub.existing(ctx.config);
      const q = hub?.engine.open().find((o) => o.id === body.id);
      if (!hub || !q) return { status: 404, body: { message: 'no such open question' } };
      await hub.cancel({ key: newQuestionId(), node: q.node, id: q.id, at: Date.now() });
      panelChanged(ctx.config);
      return { status: 200, body: { cancelled: q.id } };
    },
  },
};
