/** Console styles: neutral colours, light and dark by the system setting. */
export const CONSOLE_CSS = String.raw`
:root {
  color-scheme: light dark;
  --bg: #f3f4f6; --panel: #ffffff; --text: #1f2328; --muted: #656d76; --line: #d8dee4;
  --accent: #3b6fc9; --accent-text: #ffffff; --bubble-in: #eceff3; --bubble-out: #3b6fc9;
  --ok: #1a7f37; --warn: #9a6700; --bad: #cf222e; --chip: #eef1f5;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #16181c; --panel: #1e2126; --text: #e6e8eb; --muted: #9aa3ad; --line: #30363d;
    --accent: #5b8def; --accent-text: #0d1117; --bubble-in: #2a2f36; --bubble-out: #4a7bd0;
    --ok: #3fb950; --warn: #d29922; --bad: #f85149; --chip: #2a2f36;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
button, input, select { font: inherit; color: inherit; }
button { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 4px 10px; cursor: pointer; }
button:hover { border-color: var(--accent); }
button[type=submit] { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
button.small { font-size: 12px; padding: 1px 8px; margin-left: 8px; font-weight: normal; }
input, select { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px; min-width: 0; }
.top { display: flex; align-items: center; gap: 12px; padding: 10px 18px; background: var(--panel); border-bottom: 1px solid var(--line); }
.top h1 { font-size: 17px; margin: 0; }
.spacer { flex: 1; }
.conn { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--chip); color: var(--muted); }
.conn[data-state=live] { color: var(--ok); }
.conn[data-state=lost] { color: var(--bad); }
.notice { margin: 10px 18px 0; padding: 6px 10px; border-radius: 6px; background: var(--chip); border-left: 3px solid var(--bad); }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) 320px; gap: 14px; padding: 14px 18px 30px; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; min-width: 0; }
.panel h2 { font-size: 14px; margin: 0 0 10px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.wide { grid-column: 1 / -1; }
.side { display: flex; flex-direction: column; gap: 14px; min-width: 0; }
.empty { color: var(--muted); margin: 4px 0 10px; }
.phones { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 14px; }
.phone { border: 1px solid var(--line); border-radius: 18px; padding: 10px; display: flex; flex-direction: column; height: 430px; background: var(--bg); }
.phone-head { display: flex; align-items: center; justify-content: space-between; gap: 6px; padding: 0 4px 6px; border-bottom: 1px solid var(--line); }
.phone-number { font-weight: 600; font-family: var(--mono); font-size: 13px; }
.sub-state { font-size: 11px; padding: 1px 7px; border-radius: 10px; background: var(--chip); }
.sub-state[data-state=ok] { color: var(--ok); }
.sub-state[data-state=unknown] { color: var(--bad); }
.sub-state[data-state=unreachable] { color: var(--warn); }
.sub-buttons { display: flex; gap: 4px; padding: 6px 0; }
.sub-buttons button { flex: 1; font-size: 11px; padding: 2px 4px; }
.sub-buttons button[aria-pressed=true] { border-color: var(--accent); background: var(--chip); font-weight: 600; }
.messages { list-style: none; margin: 0; padding: 4px 2px; flex: 1; overflow-y: auto; display: flex; flex-direction: column; gap: 8px; }
.messages .older { align-self: center; font-size: 11px; color: var(--muted); }
.msg { max-width: 88%; padding: 6px 9px; border-radius: 12px; word-wrap: break-word; white-space: pre-wrap; }
.msg.in { align-self: flex-start; background: var(--bubble-in); border-bottom-left-radius: 3px; }
.msg.out { align-self: flex-end; background: var(--bubble-out); color: #fff; border-bottom-right-radius: 3px; }
.msg .meta { font-size: 11px; opacity: .75; display: flex; gap: 6px; flex-wrap: wrap; white-space: normal; }
.msg .from { font-weight: 600; }
.msg .body.binary { font-family: var(--mono); font-size: 11px; word-break: break-all; }
.tags { display: flex; flex-wrap: wrap; gap: 3px; margin-top: 4px; white-space: normal; }
.tag { font-size: 10px; padding: 0 5px; border-radius: 8px; background: var(--panel); color: var(--muted); border: 1px solid var(--line); }
.tag.flag { color: var(--accent); border-color: var(--accent); }
.state { font-size: 10px; font-weight: 600; padding: 0 5px; border-radius: 8px; border: 1px solid currentColor; }
.state[data-kind=ok] { color: var(--ok); }
.state[data-kind=bad] { color: var(--bad); }
.state[data-kind=pending] { color: var(--muted); }
.msg.out .state, .msg.out .tag { color: #fff; border-color: rgba(255,255,255,.6); background: transparent; }
.reply { display: flex; gap: 6px; padding-top: 8px; border-top: 1px solid var(--line); }
.reply input { flex: 1; }
.new-phone { display: flex; gap: 6px; margin-top: 12px; align-items: center; flex-wrap: wrap; }
.new-phone .label { color: var(--muted); font-size: 12px; }
.accounts { display: flex; flex-direction: column; gap: 10px; }
.account .line { display: flex; justify-content: space-between; align-items: baseline; }
.account .credits { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.account .sub { color: var(--muted); font-size: 12px; }
.chart { width: 100%; height: 60px; display: block; margin-top: 4px; }
.chart .line { fill: none; stroke: var(--accent); stroke-width: 1.6; }
.chart .area { fill: var(--accent); opacity: .12; stroke: none; }
.fault-form { display: flex; flex-direction: column; gap: 6px; }
.fault-form label { display: flex; gap: 6px; align-items: center; justify-content: space-between; font-size: 13px; }
.fault-form input[type=number] { width: 90px; }
.fault-form .row { display: flex; gap: 6px; justify-content: flex-end; }
.fault-form[data-kind] .ms { display: none; }
.fault-form[data-kind=delay] .ms { display: flex; }
.faults { list-style: none; margin: 8px 0 0; padding: 0; display: flex; flex-direction: column; gap: 4px; }
.faults li { font-size: 13px; padding: 3px 8px; border-radius: 6px; background: var(--chip); font-family: var(--mono); }
.scroll { overflow: auto; max-height: 360px; }
table.grid { border-collapse: collapse; width: 100%; font-size: 13px; }
table.grid th { text-align: left; font-weight: 600; color: var(--muted); position: sticky; top: 0; background: var(--panel); border-bottom: 1px solid var(--line); padding: 4px 8px; }
table.grid td { border-bottom: 1px solid var(--line); padding: 4px 8px; vertical-align: top; }
table.grid td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.clickable tbody tr { cursor: pointer; }
table.clickable tbody tr:hover, table.clickable tbody tr[aria-selected=true] { background: var(--chip); }
.status-bad { color: var(--bad); font-weight: 600; }
.reports { display: flex; flex-wrap: wrap; gap: 4px; }
.detail { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-top: 10px; }
.detail .raw { grid-column: 1 / -1; font-size: 12px; color: var(--muted); display: flex; gap: 6px; align-items: center; }
.detail h3 { font-size: 12px; margin: 0 0 4px; color: var(--muted); }
.detail pre { margin: 0; padding: 8px; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; font: 12px/1.4 var(--mono); white-space: pre-wrap; word-break: break-all; max-height: 320px; overflow: auto; }
@media (max-width: 900px) { .layout { grid-template-columns: 1fr; } .detail { grid-template-columns: 1fr; } }
`;
