import type { OperationDef } from '../../src/catalogue/types';
import type { CallContext, ParamValues } from '../../src/emulator';
import { GatewayState } from '../../src/emulator';

/**
 * A gateway that keeps working on a request after the client gave up: the next `lateSends` sends are committed
 * `lateMs` after they arrived, whether or not the connection is still open (the emulator's own `delay` fault
 * drops a request whose client went away). It can also answer the next `staleLookups` lookups with "not found"
 * (a lagging read replica).
 */
export class SlowGateway extends GatewayState {
  lateSends = 0;
  lateMs = 0;
  staleLookups = 0;
  /** Decides per send whether it is committed late (besides the `lateSends` counter). */
  lateWhen: (() => boolean) | undefined;
  /** Sends committed late so far. */
  lateCommits = 0;

  override invoke(op: OperationDef, params: ParamValues, ctx: CallContext): unknown {
    if (op.sends === true && (this.lateSends > 0 || this.lateWhen?.() === true)) {
      if (this.lateSends > 0) this.lateSends--;
      this.lateCommits++;
      return new Promise((resolve) => setTimeout(resolve, this.lateMs)).then(() =>
        super.invoke(op, params, ctx),
      );
    }
    if (this.staleLookups > 0 && (op.name === 'QueryJobInfoByJobCaption' || op.name === 'GetJobs1')) {
      this.staleLookups--;
      if (op.name === 'GetJobs1') return '';
      return { StatusCode: 'Ok', Value: { Report: [], Log: [], Received: [], Status: 'JobNotFound' } };
    }
    return super.invoke(op, params, ctx);
  }
}
