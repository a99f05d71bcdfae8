/** The console page: structure only; console.js fills it in, console.css styles it. */
export const CONSOLE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>SMS gateway emulator console</title>
<link rel="icon" href="/console/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/console/console.css">
<script src="/console/console.js" defer></script>
</head>
<body>
<header class="top">
  <h1>SMS gateway emulator</h1>
  <span id="conn" class="conn" data-state="connecting">connecting…</span>
  <span class="spacer"></span>
  <button type="button" id="advance" title="POST /_emulator/advance">Advance 1 min</button>
  <button type="button" id="finish" title="POST /_emulator/finish">Deliver all now</button>
</header>
<p id="notice" class="notice" role="status" hidden></p>
<main class="layout">
  <section class="panel phones-panel" aria-labelledby="phones-title">
    <h2 id="phones-title">Phones</h2>
    <p id="phones-empty" class="empty">No texts yet. Send an SMS to any number and its phone appears here.</p>
    <div id="phones" class="phones"></div>
    <form id="new-phone" class="new-phone" autocomplete="off">
      <span class="label">Text from another phone</span>
      <input name="from" placeholder="+4917099999999" aria-label="phone number" required>
      <input name="text" placeholder="Message" aria-label="message" required>
      <button type="submit">Send to account</button>
    </form>
  </section>
  <aside class="side">
    <section class="panel" aria-labelledby="balance-title">
      <h2 id="balance-title">Balance</h2>
      <div id="accounts" class="accounts"></div>
    </section>
    <section class="panel" aria-labelledby="faults-title">
      <h2 id="faults-title">Fault injection</h2>
      <form id="fault-form" class="fault-form" autocomplete="off">
        <label>Kind
          <select name="kind">
            <option value="delay">delay</option>
            <option value="reset">reset</option>
            <option value="commitThenDrop">commit, then drop</option>
            <option value="http503">HTTP 503</option>
            <option value="truncate">truncated answer</option>
          </select>
        </label>
        <label>Next <input name="count" type="number" min="1" max="1000" value="1"> requests</label>
        <label class="ms">Delay <input name="ms" type="number" min="0" max="600000" value="2000"> ms</label>
        <label>Only operation <input name="operation" placeholder="any" list="operations"></label>
        <datalist id="operations"></datalist>
        <div class="row"><button type="submit">Queue fault</button><button type="button" id="faults-clear">Clear all</button></div>
      </form>
      <p id="faults-empty" class="empty">No faults queued: requests are answered normally.</p>
      <ul id="faults" class="faults"></ul>
    </section>
  </aside>
  <section class="panel wide" aria-labelledby="jobs-title">
    <h2 id="jobs-title">Jobs</h2>
    <div class="scroll">
      <table id="jobs" class="grid">
        <thead><tr><th>Job</th><th>Created</th><th>Caption</th><th>Type</th><th>Sender</th><th>Recipients</th><th>Status</th><th>Delivery reports</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
  </section>
  <section class="panel wide" aria-labelledby="requests-title">
    <h2 id="requests-title">Requests <button type="button" id="requests-clear" class="small" title="DELETE /_emulator/requests">Clear</button></h2>
    <div class="scroll">
      <table id="requests" class="grid clickable">
        <thead><tr><th>Time</th><th>Operation</th><th>Transport</th><th>Status</th><th>Duration</th><th>Fault</th></tr></thead>
        <tbody></tbody>
      </table>
    </div>
    <div id="request-detail" class="detail" hidden>
      <label class="raw"><input type="checkbox" id="raw-xml"> as logged, without indentation</label>
      <div><h3>Request</h3><pre id="request-xml"></pre></div>
      <div><h3>Response</h3><pre id="response-xml"></pre></div>
    </div>
  </section>
</main>
</body>
</html>
`;
