import type { OperationDef } from '../../src/catalogue/types';
import { GatewayState, type CallContext, type ParamValues } from '../../src/emulator';

/**
 * A gateway that writes other SMSReport.Status words than the emulator's DELIVERED / UNDELIV / EXPIRED: the
 * reports of the numbers in `statusOf` carry that status in QueryReceivedDLR answers (the spec lists none).
 */
export class RespelledReports extends GatewayState {
  readonly statusOf = new Map<string, string>();

  override invoke(op: OperationDef, params: ParamValues, ctx: CallContext): unknown {
    const answer = super.invoke(op, params, ctx) as { Value?: unknown };
    if (op.name !== 'QueryReceivedDLR' || !Array.isArray(answer?.Value)) return answer;
    const reports = answer.Value as Array<Record<string, unknown>>;
    return {
      ...answer,
      Value: reports.map((r) => ({ ...r, Status: this.statusOf.get(String(r.Recipient)) ?? r.Status })),
    };
  }
}
