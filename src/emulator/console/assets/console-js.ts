/**
 * The console page's script (ES2018, no framework, no build step). It reads everything from the event stream
 * `/_emulator/events` and acts only through the documented control API. Data goes into the page as text
 * (textContent / createTextNode), never as HTML. Kept free of template literals so it can live in String.raw.
 */
export const CONSOLE_JS = String.raw`(function () {
  'use strict';

  var MAX_REQUESTS = 200;
  var MAX_JOB_ROWS = 300;
  var MAX_PHONE_ITEMS = 200;
  /** Jobs and inbound messages the page keeps in memory (the oldest go first). */
  var MAX_KEPT = 2000;
  var SVG = 'http://www.w3.org/2000/svg';

  var model = {
    accounts: new Map(),
    history: new Map(),
    jobs: new Map(),
    inbound: new Map(),
    subscribers: {},
    faults: [],
    requests: [],
    seq: 0,
    selected: null
  };
  var phones = new Map();
  var dirty = {};
  /** Phones whose messages changed (allPhones: every phone, and drop phones that are gone). */
  var dirtyPhones = new Set();
  var allPhones = false;
  var timer = null;

  function byId(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function time(iso) {
    var d = new Date(iso);
    if (isNaN(d.getTime())) return '';
    return d.toLocaleTimeString('en-GB', { hour12: false });
  }
  function credits(n) { return (Math.round(n * 10000) / 10000).toLocaleString('en-US', { maximumFractionDigits: 4 }); }

  // ---------- control API

  function control(method, path, body) {
    var init = { method: method, cache: 'no-store', credentials: 'same-origin', headers: {} };
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    return fetch(path, init).then(function (res) {
      return res.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
        if (!res.ok) throw new Error((data && data.error) || ('HTTP ' + res.status + ' from ' + path));
        return data;
      });
    });
  }

  var noticeTimer = null;
  function notify(text) {
    var n = byId('notice');
    n.textContent = text;
    n.hidden = false;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(function () { n.hidden = true; }, 8000);
  }
  function act(promise) {
    return promise.catch(function (err) { notify(err && err.message ? err.message : String(err)); });
  }

  // ---------- event stream

  function invalidate() {
    for (var i = 0; i < arguments.length; i++) dirty[arguments[i]] = true;
    if (timer === null) timer = setTimeout(render, 16);
  }

  function keep(map, id, value) {
    map.set(id, value);
    if (map.size > MAX_KEPT) map.delete(map.keys().next().value);
  }

  function invalidatePhones(keys) {
    if (keys === null) allPhones = true;
    else keys.forEach(function (k) { dirtyPhones.add(k); });
    invalidate('phones', 'badges');
  }

  function addHistory(user, at, balance) {
    var points = model.history.get(user) || [];
    var last = points[points.length - 1];
    if (!last || last.balance !== balance) points.push({ at: at, balance: balance });
    if (points.length > 500) points.shift();
    model.history.set(user, points);
  }

  function addRequest(entry) {
    model.seq += 1;
    entry.seq = model.seq;
    model.requests.push(entry);
    if (model.requests.length > MAX_REQUESTS) model.requests.shift();
  }

  function onSnapshot(d) {
    model.accounts = new Map();
    (d.accounts || []).forEach(function (a) { model.accounts.set(a.user, a); });
    model.history = new Map();
    var hist = d.balanceHistory || {};
    Object.keys(hist).forEach(function (user) { model.history.set(user, hist[user].slice()); });
    model.jobs = new Map();
    (d.jobs || []).forEach(function (j) { model.jobs.set(j.id, j); });
    model.inbound = new Map();
    (d.inbound || []).forEach(function (m) { model.inbound.set(m.id, m); });
    model.subscribers = d.subscribers || {};
    model.faults = d.faults || [];
    model.requests = [];
    model.selected = null;
    (d.requests || []).forEach(addRequest);
    invalidatePhones(null);
    invalidate('jobs', 'accounts', 'faults', 'requests');
  }

  function connect() {
    var conn = byId('conn');
    var es = new EventSource('/_emulator/events');
    function on(name, fn) {
      es.addEventListener(name, function (e) {
        var data;
        try { data = JSON.parse(e.data); } catch (err) { return; }
        fn(data);
      });
    }
    es.addEventListener('open', function () {
      conn.dataset.state = 'live';
      conn.textContent = 'live';
    });
    es.addEventListener('error', function () {
      conn.dataset.state = 'lost';
      conn.textContent = 'reconnecting…';
    });
    on('snapshot', onSnapshot);
    on('job', function (j) {
      keep(model.jobs, j.id, j);
      if (j.message) invalidatePhones(j.keys);
      invalidate('jobs');
    });
    on('inbound', function (m) { keep(model.inbound, m.id, m); invalidatePhones([m.key]); });
    on('balance', function (a) {
      model.accounts.set(a.user, a);
      addHistory(a.user, a.at, a.balance);
      invalidate('accounts');
    });
    on('subscribers', function (d) { model.subscribers = d.subscribers || {}; invalidate('badges'); });
    on('faults', function (d) { model.faults = d.faults || []; invalidate('faults'); });
    on('request', function (r) { addRequest(r); invalidate('requests'); });
    on('requests', function (d) {
      model.requests = [];
      model.selected = null;
      (d.requests || []).forEach(addRequest);
      invalidate('requests');
    });
  }

  // ---------- rendering

  function render() {
    timer = null;
    var parts = dirty;
    dirty = {};
    if (parts.phones) {
      var only = allPhones ? null : dirtyPhones;
      allPhones = false;
      dirtyPhones = new Set();
      renderPhones(only);
    }
    if (parts.badges) renderBadges();
    if (parts.jobs) renderJobs();
    if (parts.accounts) renderAccounts();
    if (parts.faults) renderFaults();
    if (parts.requests) renderRequests();
  }

  var PENDING = { Offen: 'queued', InBearbeitung: 'sent', ZuWenigKontingent: 'no credit' };

  function stateChip(text, kind, title) {
    var s = el('span', 'state', text);
    s.dataset.kind = kind;
    if (title) s.title = title;
    return s;
  }

  function deliveryChip(job, key) {
    var reports = (job.reports || []).filter(function (r) { return r.key === key; });
    if (reports.length === 0) {
      var pending = PENDING[job.status] || job.status || 'pending';
      return stateChip(pending, job.status === 'ZuWenigKontingent' ? 'bad' : 'pending', 'job status ' + job.status);
    }
    var failed = reports.filter(function (r) { return r.status !== 'DELIVERED'; });
    var shown = failed.length ? failed[0] : reports[0];
    var text = shown.status + (shown.status === 'DELIVERED' ? '' : ' · ' + shown.msgText);
    return stateChip(text, failed.length ? 'bad' : 'ok', reports.length + (reports.length === 1 ? ' report, last ' : ' reports, last ') + time(reports[reports.length - 1].at));
  }

  function tags(job) {
    var box = el('div', 'tags');
    var enc = { gsm7: 'GSM-7', ucs2: 'UCS-2', binary: 'binary' }[job.encoding];
    if (enc) box.appendChild(el('span', 'tag', enc));
    box.appendChild(el('span', 'tag', job.segments + (job.segments === 1 ? ' segment' : ' segments')));
    if (job.flash) box.appendChild(el('span', 'tag flag', 'flash'));
    if (job.long) box.appendChild(el('span', 'tag flag', 'long'));
    if (job.udh) box.appendChild(el('span', 'tag flag', 'UDH'));
    return box;
  }

  function receivedItem(job, key) {
    var li = el('li', 'msg in');
    li.dataset.job = String(job.id);
    var meta = el('div', 'meta');
    meta.appendChild(el('span', 'from', job.sender || '(no sender)'));
    meta.appendChild(el('time', null, time(job.sentAt || job.createdAt)));
    meta.appendChild(el('span', 'job', '#' + job.id));
    li.appendChild(meta);
    var binary = job.encoding === 'binary';
    li.appendChild(el('div', binary ? 'body binary' : 'body', binary ? (job.binData || job.text) : job.text));
    var t = tags(job);
    t.appendChild(deliveryChip(job, key));
    li.appendChild(t);
    return li;
  }

  function sentItem(m) {
    var li = el('li', 'msg out');
    li.dataset.inbound = String(m.id);
    li.appendChild(el('div', 'body', m.text));
    var meta = el('div', 'meta');
    meta.appendChild(el('time', null, time(m.at)));
    if (m.jobId) meta.appendChild(el('span', 'job', 'reply to #' + m.jobId));
    meta.appendChild(stateChip(m.collected ? 'collected' : 'waiting', m.collected ? 'ok' : 'pending',
      m.collected ? 'fetched by QueryReceivedNewSMS / GetNewRecivedSMS2' : 'not collected yet'));
    li.appendChild(meta);
    return li;
  }

  function makePhone(key, number) {
    var card = el('article', 'phone');
    card.dataset.number = key;
    var head = el('header', 'phone-head');
    head.appendChild(el('span', 'phone-number', number));
    var badge = el('span', 'sub-state');
    head.appendChild(badge);
    card.appendChild(head);
    var buttons = el('div', 'sub-buttons');
    var subButtons = {};
    [['ok', 'Reachable'], ['unknown', 'Unknown'], ['unreachable', 'Unreachable']].forEach(function (pair) {
      var b = el('button', null, pair[1]);
      b.type = 'button';
      b.dataset.sub = pair[0];
      b.title = 'next delivery reports for this number: ' + pair[0];
      b.addEventListener('click', function () {
        act(control('POST', '/_emulator/subscriber', { number: number, state: pair[0] }));
      });
      subButtons[pair[0]] = b;
      buttons.appendChild(b);
    });
    card.appendChild(buttons);
    var list = el('ol', 'messages');
    list.setAttribute('aria-label', 'messages of ' + number);
    card.appendChild(list);
    var form = el('form', 'reply');
    form.autocomplete = 'off';
    var input = el('input');
    input.name = 'text';
    input.placeholder = 'Reply from ' + number;
    input.setAttribute('aria-label', 'reply from ' + number);
    input.maxLength = 1600;
    var send = el('button', null, 'Send');
    send.type = 'submit';
    form.appendChild(input);
    form.appendChild(send);
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var text = input.value;
      if (text === '') return;
      var body = { from: number, text: text };
      var last = lastJobTo(key);
      if (last) {
        body.jobId = last.id;
        body.user = last.user;
      }
      send.disabled = true;
      act(control('POST', '/_emulator/inbound', body).then(function () { input.value = ''; }))
        .then(function () { send.disabled = false; });
    });
    card.appendChild(form);
    byId('phones').appendChild(card);
    var phone = { card: card, list: list, badge: badge, buttons: subButtons, number: number, count: -1 };
    phones.set(key, phone);
    return phone;
  }

  function lastJobTo(key) {
    var found = null;
    model.jobs.forEach(function (j) {
      if (j.message && j.keys.indexOf(key) >= 0 && (!found || j.id > found.id)) found = j;
    });
    return found;
  }

  /** Redraws the message lists of the phones in 'only' (a Set of keys), or of every phone when it is null. */
  function renderPhones(only) {
    var threads = new Map();
    function thread(key, number) {
      var t = threads.get(key);
      if (!t) { t = { number: number, items: [] }; threads.set(key, t); }
      return t;
    }
    var jobs = Array.from(model.jobs.values()).sort(function (a, b) { return a.id - b.id; });
    jobs.forEach(function (job) {
      if (!job.message) return;
      job.keys.forEach(function (key, i) {
        if (job.keys.indexOf(key) !== i) return;
        thread(key, job.recipients[i]).items.push({ at: job.sentAt || job.createdAt, order: job.id, node: function () { return receivedItem(job, key); } });
      });
    });
    Array.from(model.inbound.values()).sort(function (a, b) { return a.id - b.id; }).forEach(function (m) {
      thread(m.key, m.from).items.push({ at: m.at, order: 1e12 + m.id, node: function () { return sentItem(m); } });
    });
    byId('phones-empty').hidden = threads.size > 0;
    if (only === null) {
      // after a (re)connect: phones of a state that is gone (emulator restarted) go too
      phones.forEach(function (phone, key) {
        if (threads.has(key)) return;
        phone.card.parentNode.removeChild(phone.card);
        phones.delete(key);
      });
    }
    threads.forEach(function (t, key) {
      if (only !== null && !only.has(key) && phones.has(key)) return;
      var phone = phones.get(key) || makePhone(key, t.number);
      var list = phone.list;
      var atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 24;
      t.items.sort(function (a, b) { return a.at < b.at ? -1 : a.at > b.at ? 1 : a.order - b.order; });
      var hidden = Math.max(0, t.items.length - MAX_PHONE_ITEMS);
      clear(list);
      if (hidden > 0) list.appendChild(el('li', 'older', hidden + ' older messages not shown'));
      t.items.slice(hidden).forEach(function (item) { list.appendChild(item.node()); });
      if (atBottom || t.items.length !== phone.count) list.scrollTop = list.scrollHeight;
      phone.count = t.items.length;
    });
  }

  function renderBadges() {
    phones.forEach(function (phone, key) {
      var state = model.subscribers[key] || 'ok';
      phone.badge.dataset.state = state;
      phone.badge.textContent = { ok: 'reachable', unknown: 'unknown subscriber', unreachable: 'unreachable' }[state] || state;
      Object.keys(phone.buttons).forEach(function (s) {
        phone.buttons[s].setAttribute('aria-pressed', String(s === state));
      });
    });
  }

  function cell(row, text, cls) {
    var td = el('td', cls, text);
    row.appendChild(td);
    return td;
  }

  function renderJobs() {
    var body = byId('jobs').tBodies[0];
    clear(body);
    var jobs = Array.from(model.jobs.values()).sort(function (a, b) { return b.id - a.id; }).slice(0, MAX_JOB_ROWS);
    jobs.forEach(function (job) {
      var tr = el('tr');
      tr.dataset.job = String(job.id);
      cell(tr, job.id, 'num');
      cell(tr, time(job.createdAt));
      cell(tr, job.caption);
      var type = cell(tr, job.type);
      if (job.message) {
        type.appendChild(document.createTextNode(' '));
        type.appendChild(tags(job));
      }
      cell(tr, job.sender);
      cell(tr, job.recipients.join(', '));
      cell(tr, job.status, job.status === 'Fehler' || job.status === 'ZuWenigKontingent' ? 'status-bad' : null);
      var reports = cell(tr, null);
      var box = el('div', 'reports');
      job.keys.forEach(function (key, i) {
        if (job.keys.indexOf(key) !== i) return;
        var rs = (job.reports || []).filter(function (r) { return r.key === key; });
        if (rs.length === 0) return;
        var bad = rs.filter(function (r) { return r.status !== 'DELIVERED'; });
        var shown = bad.length ? bad[0] : rs[0];
        box.appendChild(stateChip(job.recipients[i] + ': ' + shown.status + (rs.length > 1 ? ' ×' + rs.length : ''),
          bad.length ? 'bad' : 'ok', shown.msgText));
      });
      reports.appendChild(box);
      body.appendChild(tr);
    });
  }

  function chart(points) {
    var svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('class', 'chart');
    svg.setAttribute('viewBox', '0 0 300 60');
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    if (points.length === 0) return svg;
    var ts = points.map(function (p, i) { var t = new Date(p.at).getTime(); return isNaN(t) ? i : t; });
    var t0 = Math.min.apply(null, ts);
    var t1 = Math.max.apply(null, ts);
    var vs = points.map(function (p) { return p.balance; });
    var v0 = Math.min.apply(null, vs);
    var v1 = Math.max.apply(null, vs);
    if (v0 === v1) { v0 -= 1; v1 += 1; }
    var xy = points.map(function (p, i) {
      var x = t1 === t0 ? (points.length === 1 ? 300 : (i / (points.length - 1)) * 300) : ((ts[i] - t0) / (t1 - t0)) * 300;
      var y = 56 - ((p.balance - v0) / (v1 - v0)) * 52;
      return [x, y];
    });
    // a step line: the balance holds until the next change
    var coords = [];
    xy.forEach(function (p, i) {
      if (i > 0) coords.push(p[0].toFixed(1) + ',' + xy[i - 1][1].toFixed(1));
      coords.push(p[0].toFixed(1) + ',' + p[1].toFixed(1));
    });
    coords.push('300,' + xy[xy.length - 1][1].toFixed(1));
    if (points.length === 1) coords.unshift('0,' + xy[0][1].toFixed(1));
    var area = document.createElementNS(SVG, 'polygon');
    area.setAttribute('class', 'area');
    area.setAttribute('points', coords.join(' ') + ' 300,60 ' + coords[0].split(',')[0] + ',60');
    svg.appendChild(area);
    var line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('class', 'line');
    line.setAttribute('points', coords.join(' '));
    svg.appendChild(line);
    var title = document.createElementNS(SVG, 'title');
    title.textContent = 'credits over time: ' + points.map(function (p) { return time(p.at) + ' ' + credits(p.balance); }).join(', ');
    svg.appendChild(title);
    return svg;
  }

  function renderAccounts() {
    var box = byId('accounts');
    clear(box);
    model.accounts.forEach(function (a) {
      var div = el('div', 'account');
      div.dataset.user = a.user;
      var line = el('div', 'line');
      line.appendChild(el('span', 'user', a.user));
      line.appendChild(el('span', 'credits', credits(a.balance)));
      div.appendChild(line);
      var sub = [];
      if (a.reserved) sub.push(credits(a.reserved) + ' reserved for queued jobs');
      if (a.locked) sub.push('locked');
      if (sub.length) div.appendChild(el('div', 'sub', sub.join(' · ')));
      div.appendChild(chart(model.history.get(a.user) || [{ at: new Date().toISOString(), balance: a.balance }]));
      box.appendChild(div);
    });
  }

  function renderFaults() {
    var list = byId('faults');
    clear(list);
    model.faults.forEach(function (f) {
      var text = f.kind + (f.kind === 'delay' ? ' ' + f.ms + ' ms' : '') + ' × ' + f.remaining + (f.operation ? ' (' + f.operation + ')' : '');
      list.appendChild(el('li', null, text));
    });
    byId('faults-empty').hidden = model.faults.length > 0;
  }

  /** Indents XML for reading (display only: the raw text is one click away). */
  function prettyXml(text) {
    var start = text.indexOf('<');
    if (start < 0) return text;
    var head = text.slice(0, start);
    var depth = 0;
    var lines = text.slice(start).replace(/>\s*</g, '>\n<').split('\n').map(function (line) {
      var closing = /^<\//.test(line);
      var opening = /^<[^\/?!]/.test(line) && !/\/>$/.test(line) && !/^<([^\s>\/]+)[^>]*>.*<\/\1\s*>$/.test(line);
      if (closing) depth = Math.max(0, depth - 1);
      var out = new Array(depth + 1).join('  ') + line;
      if (opening) depth += 1;
      return out;
    });
    return head + lines.join('\n');
  }

  function renderRequests() {
    var body = byId('requests').tBodies[0];
    clear(body);
    var selected = null;
    model.requests.slice().reverse().forEach(function (r) {
      var tr = el('tr');
      tr.dataset.seq = String(r.seq);
      cell(tr, time(r.time));
      cell(tr, r.operation || (r.transport === 'wsdl' ? 'WSDL' : r.transport === 'help' ? 'help page' : '–'));
      cell(tr, r.transport || '');
      cell(tr, r.status === 0 ? 'dropped' : r.status, r.status >= 400 || r.status === 0 ? 'num status-bad' : 'num');
      cell(tr, r.durationMs.toFixed(1) + ' ms', 'num');
      cell(tr, r.fault || '');
      if (r.seq === model.selected) {
        tr.setAttribute('aria-selected', 'true');
        selected = r;
      }
      tr.addEventListener('click', function () {
        model.selected = model.selected === r.seq ? null : r.seq;
        renderRequests();
      });
      body.appendChild(tr);
    });
    var detail = byId('request-detail');
    detail.hidden = selected === null;
    var raw = byId('raw-xml').checked;
    byId('request-xml').textContent = selected ? (raw ? selected.request : prettyXml(selected.request)) : '';
    byId('response-xml').textContent = selected ? (raw ? selected.response : prettyXml(selected.response)) : '';
  }

  // ---------- controls

  function setup() {
    byId('advance').addEventListener('click', function () { act(control('POST', '/_emulator/advance', { ms: 60000 })); });
    byId('finish').addEventListener('click', function () { act(control('POST', '/_emulator/finish', {})); });
    byId('requests-clear').addEventListener('click', function () { act(control('DELETE', '/_emulator/requests')); });
    byId('raw-xml').addEventListener('change', renderRequests);
    byId('faults-clear').addEventListener('click', function () { act(control('DELETE', '/_emulator/faults')); });
    var faultForm = byId('fault-form');
    faultForm.dataset.kind = faultForm.elements.kind.value;
    faultForm.elements.kind.addEventListener('change', function () { faultForm.dataset.kind = faultForm.elements.kind.value; });
    faultForm.addEventListener('submit', function (e) {
      e.preventDefault();
      var f = faultForm.elements;
      var spec = { kind: f.kind.value, count: Number(f.count.value) || 1 };
      if (spec.kind === 'delay') spec.ms = Number(f.ms.value) || 0;
      if (f.operation.value.trim() !== '') spec.operation = f.operation.value.trim();
      act(control('POST', '/_emulator/faults', spec));
    });
    var newPhone = byId('new-phone');
    newPhone.addEventListener('submit', function (e) {
      e.preventDefault();
      var f = newPhone.elements;
      act(control('POST', '/_emulator/inbound', { from: f.from.value.trim(), text: f.text.value }).then(function () {
        f.text.value = '';
      }));
    });
    connect();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', setup);
  else setup();
})();
`;
