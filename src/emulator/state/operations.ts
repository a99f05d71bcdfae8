/**
 * The dispatch table: one handler per catalogue operation, keyed `service/name`. Authentication happens
 * here, once, and each kind of operation answers a failed login its own way.
 */
import { OPERATIONS, type OperationDef } from '../../catalogue';
import type { ParamValues } from '../contract';
import { LEGACY_LOGIN_ERROR, authenticate } from './auth';
import type { AccountHandler, OpEnv } from './env';
import * as customer from './ops-customer';
import * as info from './ops-info';
import * as legacy from './ops-legacy';
import * as send from './ops-send';

export type OperationHandler = (env: OpEnv, op: OperationDef, params: ParamValues) => unknown;

/** Typed operations: `{ StatusCode, Value }`, Value omitted when the login fails. */
const typed =
  (fn: AccountHandler): OperationHandler =>
  (env, op, params) => {
    const auth = authenticate(env.store, op, params, env.ctx);
    return auth.ok ? { StatusCode: 'Ok', Value: fn(env, auth.state, params) } : { StatusCode: auth.status };
  };

/** Legacy operations: a string, `Error ...` when the login fails. */
const legacyOp =
  (fn: AccountHandler): OperationHandler =>
  (env, op, params) => {
    const auth = authenticate(env.store, op, params, env.ctx);
    return auth.ok ? fn(env, auth.state, params) : LEGACY_LOGIN_ERROR[auth.status];
  };

export const HANDLERS: Readonly<Record<string, OperationHandler>> = {
  'information/QueryJobs': typed(info.queryJobs),
  'information/QueryJobInfoByJobCaption': typed(info.queryJobInfoByJobCaption),
  'information/QueryNewHLRJobs': typed(info.queryNewHlrJobs),
  'information/QueryHLRJobsByJobID': typed(info.queryHlrJobsByJobId),
  'information/QueryReceivedDLRByJobID': typed(info.queryReceivedDlrByJobId),
  'information/QueryReceivedDLR': typed(info.queryReceivedDlr),
  'information/QueryReceivedSMSByJobCaption': typed(info.queryReceivedSmsByJobCaption),
  'information/QueryReceivedNewSMS': typed(info.queryReceivedNewSms),
  'information/QueryAccountBalance': typed(info.queryAccountBalance),
  'send/SendSMS': typed(send.sendSms),
  'send/SendSimpleSMS': typed(send.sendSimpleSms),
  // A list of envelopes: a failed login is one envelope carrying the LoginStatus.
  'send/SendMobileOrFixlineSMS': (env, op, params) => {
    const auth = authenticate(env.store, op, params, env.ctx);
    return auth.ok ? send.sendMobileOrFixline(env, auth.state, params) : [{ StatusCode: auth.status }];
  },
  'send/SendHLR': typed(send.sendHlr),
  'send/SendUDH': typed(send.sendUdh),
  'customer/GetCustomerList': typed(customer.getCustomerList),
  'customer/GetCustomer': typed(customer.getCustomer),
  'customer/GetCustomerWithAuthUser': typed(customer.getCustomerWithAuthUser),
  'customer/CreateCustomer': typed(customer.createCustomer),
  'legacy/SendText': legacyOp(legacy.sendTextOp),
  'legacy/SendText2': legacyOp(legacy.sendTextOp),
  'legacy/SendSMS': legacyOp(legacy.sendSmsOp),
  'legacy/SendSMS2': legacyOp(legacy.sendSmsOp),
  'legacy/SendSimpleSMS': legacyOp(legacy.sendSimpleSmsOp),
  'legacy/SMSCR': legacyOp(legacy.smscrOp),
  'legacy/SendBinURL': legacyOp(legacy.sendBinUrlOp),
  'legacy/SendBinData': legacyOp(legacy.sendBinDataOp),
  'legacy/SendBinData2': legacyOp(legacy.sendBinData2Op),
  'legacy/GetRecivedSMS2': legacyOp(legacy.getRecivedSms2Op),
  'legacy/RecivedSMS2': legacyOp(legacy.recivedSms2Op),
  'legacy/GetNewRecivedSMS2': legacyOp(legacy.getNewRecivedSms2Op),
  'legacy/QueryBalance2': legacyOp(legacy.queryBalance2Op),
  'legacy/GetJobs1': legacyOp(legacy.getJobsOp),
  'legacy/GetGetJobsWithStatusResult': legacyOp(legacy.getJobsOp),
};

export const handlerKey = (op: Pick<OperationDef, 'service' | 'name'>): string => `${op.service}/${op.name}`;

/** Catalogue operations without a handler (empty when the table is complete; checked at start-up and in tests). */
export function missingHandlers(): string[] {
  return OPERATIONS.map(handlerKey).filter((k) => !HANDLERS[k]);
}
