/** Internal records → wire values in contract.ts's conventions (Date objects, null for "no date"). */
import type { CustomerRecord, HlrRecord, InboundRecord, JobRecord, LogRecord, ReportRecord } from './model';

const date = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

export function jobView(job: JobRecord): Record<string, unknown> {
  const total = job.recipients.length * job.segments;
  return {
    Id: job.id,
    CustId: job.custId,
    Typ: job.typ,
    Sender: job.sender,
    Caption: job.caption,
    Text: job.text,
    Status: job.status,
    SMSTotal: total,
    SMSTransferd: job.sentAt === null ? 0 : total,
    FavoredDate: date(job.favoredAt ?? job.createdAt),
    SendDate: date(job.sentAt),
    CreateDate: date(job.createdAt),
    Recipient: job.recipients.join(','),
    Amount: job.amount,
    BinDataTyp: job.binDataTyp,
    BinData: job.binData,
    Priority: job.priority,
    ChangedDate: date(job.changedAt),
    ChangedId: 0,
    TotalSequences: job.segments,
  };
}

export function reportView(r: ReportRecord): Record<string, unknown> {
  return {
    Id: r.id,
    Recipient: r.recipient,
    JobId: r.jobId,
    Status: r.status,
    Date: date(r.at),
    MsgCode: r.msgCode,
    MsgText: r.msgText,
    DoneDate: date(r.at),
    DoneDateTimeZoneOffset: 0,
    Sequence: r.sequence,
    Caption: r.caption,
    CreateDate: date(r.createdAt),
  };
}

/** One DeliveryReporting per segment of a single-recipient job: final once reports exist, pending before. */
export function deliveryViews(job: JobRecord): Record<string, unknown>[] {
  const common = {
    JobID: job.id,
    Sender: job.sender,
    Text: job.text,
    SentOn: date(job.sentAt),
    DeliveredOnTimeZoneOffset: 0,
  };
  if (job.reports.length > 0) {
    return job.reports.map((r) => ({
      ...common,
      IsFinalState: true,
      SmsState: r.status,
      DeliveredOn: r.status === 'DELIVERED' ? date(r.at) : null,
      CSMSPartNumber: r.sequence,
      UnknownSubscriber: r.unknownSubscriber,
    }));
  }
  if (job.phase === 'credit' || job.phase === 'done') return [];
  const state = job.phase === 'deliver' ? 'ENROUTE' : 'ACCEPTED';
  return Array.from({ length: job.segments }, (_, i) => ({
    ...common,
    IsFinalState: false,
    SmsState: state,
    DeliveredOn: null,
    CSMSPartNumber: i + 1,
    UnknownSubscriber: false,
  }));
}

export function logView(l: LogRecord): Record<string, unknown> {
  return {
    Id: l.id,
    CustId: l.custId,
    JobId: l.jobId,
    Priorety: l.priority,
    Caption: l.caption,
    Text: l.text,
    CreateDate: date(l.at),
  };
}

export function receivedView(m: InboundRecord): Record<string, unknown> {
  return {
    Id: m.id,
    CustId: m.custId,
    JobId: m.jobId,
    Sender: m.sender,
    Text: m.text,
    Date: date(m.at),
    Info: m.to,
    Report: m.report,
    Send: m.collected ? 1 : 0,
    PDU: '',
    SmscDateTime: date(m.at),
    SmscDateTimeZoneOffset: 0,
  };
}

export function smsReceivedView(m: InboundRecord, caption: string): Record<string, unknown> {
  return { JobId: m.jobId, Sender: m.sender, Text: m.text, Date: date(m.at), PDU: '', Caption: caption };
}

export function hlrView(h: HlrRecord): Record<string, unknown> {
  return {
    Id: h.id,
    JobId: h.jobId,
    Status: h.status,
    Ref: h.ref,
    Number: h.number,
    NecNetworkType: h.networkType,
    NecValue: h.necValue,
    NormNetCode: h.normNetCode,
    GsmError: h.gsmError,
    CreateDate: date(h.createdAt),
    ReciveDate: date(h.receivedAt),
  };
}

/** A customer without its password (the wire never shows passwords). */
export function customerView(
  c: CustomerRecord,
  ipLock: string[] | null,
  withAuthUser: boolean,
): Record<string, unknown> {
  const u = c.authUser;
  return {
    Id: c.id,
    ResId: c.resId,
    ...c.fields,
    Active: 1,
    PricelistId: 1,
    SendWarn: 0,
    SendWarnType: 0,
    EMailNewsletter: 0,
    CreateDate: date(c.createdAt),
    IPLock: ipLock ? ipLock.join(';') : undefined,
    UseCountryCode: false,
    CountryCode: 49,
    PayOption: 'None',
    DeliveryOption: 'None',
    AuthUser: withAuthUser
      ? {
          Id: u.id,
          CustId: u.custId,
          FirstName: u.firstName,
          LastName: u.lastName,
          EMail: u.email,
          Phone: u.phone,
          Locked: u.locked,
          CreateDate: date(u.createdAt),
          ChangedDate: date(u.changedAt),
        }
      : undefined,
  };
}
