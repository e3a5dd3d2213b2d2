// The Sluice console: reads GET /v1/stats and GET /v1/stats/limited-keys every two seconds and
// draws them; edits rules through PUT /v1/rules/{name}; tries keys through GET /v1/limits (a peek)
// or POST /v1/check. Everything the API answers is written into the page as text, never as HTML.
'use strict';
(function () {
  const SECONDS = 900; // the history the page keeps: 15 minutes at one-second resolution
  const POLL_MS = 2000;
  const TOKEN_KEY = 'sluice.adminToken';

  const state = {
    token: sessionStorage.getItem(TOKEN_KEY) || '',
    tokenRefused: false,
    until: null, // the last second held, in epoch seconds
    rates: new Map(), // rule -> {allowed, denied, shadow}: Int32Array(SECONDS), oldest first
    latency: null, // {decisions, mean, p99, max}
    rules: [],
    editing: null,
    frontEndsBefore: null,
    untrackedDenials: 0, // denials the members' sketches did not take in
    masked: true, // whether the last limited-keys answer masked the keys
  };

  const $ = (selector) => document.querySelector(selector);

  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (name === 'class') node.className = value;
      else node.setAttribute(name, value);
    }
    for (const child of children) {
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function setStatus(text, good) {
    const status = $('#status');
    status.textContent = text;
    status.className = 'status ' + (good ? 'good' : 'bad');
  }

  async function api(method, path, body, withToken) {
    const headers = { Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (withToken && state.token) headers.Authorization = 'Bearer ' + state.token;
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
    });
    let json = null;
    const text = await response.text();
    if (text) {
      try {
        json = JSON.parse(text);
      } catch (e) {
        json = { error: 'not_json', message: text.slice(0, 200) };
      }
    }
    return { status: response.status, json };
  }

  // ------------------------------------------------------------------ series kept in the page

  function series() {
    const column = () => new Int32Array(SECONDS);
    return { allowed: column(), denied: column(), shadow: column(), timed: column(), mean: column() };
  }

  /** Moves every array so that it ends at `until`, and writes the `count` newest values. */
  function splice(stats) {
    const count = stats.seconds;
    const shift = state.until === null ? SECONDS : stats.untilSecond - state.until;
    const move = (array) => {
      if (shift >= SECONDS) array.fill(0);
      else if (shift > 0) {
        array.copyWithin(0, shift);
        array.fill(0, SECONDS - shift);
      }
    };
    const write = (array, values) => array.set(values.slice(-Math.min(count, SECONDS)), SECONDS - Math.min(count, SECONDS));
    if (shift < 0) return; // an answer older than what is held
    for (const rule of state.rates.values()) {
      for (const column of [rule.allowed, rule.denied, rule.shadow, rule.timed, rule.mean]) {
        move(column);
        column.fill(0, SECONDS - count);
      }
    }
    for (const rule of stats.rates) {
      let held = state.rates.get(rule.rule);
      if (!held) {
        held = series();
        state.rates.set(rule.rule, held);
      }
      write(held.allowed, rule.allowed);
      write(held.denied, rule.denied);
      write(held.shadow, rule.shadowDenied);
      write(held.timed, rule.timed);
      write(held.mean, rule.meanMicros);
    }
    for (const [name, held] of state.rates) {
      if (total(held.allowed) + total(held.denied) + total(held.shadow) === 0) state.rates.delete(name);
    }
    if (!state.latency) {
      state.latency = { decisions: new Int32Array(SECONDS), mean: new Int32Array(SECONDS), p99: new Int32Array(SECONDS), max: new Int32Array(SECONDS) };
    }
    const l = state.latency;
    move(l.decisions); move(l.mean); move(l.p99); move(l.max);
    write(l.decisions, stats.latency.decisions);
    write(l.mean, stats.latency.meanMicros);
    write(l.p99, stats.latency.p99Micros);
    write(l.max, stats.latency.maxMicros);
    state.until = stats.untilSecond;
  }

  // ------------------------------------------------------------------ drawing

  function prepare(canvas) {
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth || SECONDS;
    const height = canvas.clientHeight || 90;
    if (canvas.width !== Math.round(width * ratio)) canvas.width = Math.round(width * ratio);
    if (canvas.height !== Math.round(height * ratio)) canvas.height = Math.round(height * ratio);
    const g = canvas.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    return { g, width, height };
  }

  function colour(name) {
    return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  }

  function drawRates(canvas, held) {
    const { g, width, height } = prepare(canvas);
    let top = 1;
    for (let i = 0; i < SECONDS; i++) top = Math.max(top, held.allowed[i] + held.denied[i] + held.shadow[i]);
    const x = (i) => (i * width) / SECONDS;
    const barWidth = Math.max(1, width / SECONDS);
    const scale = (height - 14) / top;
    const layers = [[held.allowed, colour('--allowed')], [held.denied, colour('--denied')], [held.shadow, colour('--shadow')]];
    for (let i = 0; i < SECONDS; i++) {
      let y = height;
      for (const [values, fill] of layers) {
        if (values[i] === 0) continue;
        const h = Math.max(1, values[i] * scale);
        g.fillStyle = fill;
        g.fillRect(x(i), y - h, barWidth, h);
        y -= h;
      }
    }
    g.fillStyle = colour('--muted');
    g.font = '11px system-ui, sans-serif';
    g.fillText(top + '/s', 4, 11);
    g.fillText('-15 min', 4, height - 3);
    g.fillText('now', width - 24, height - 3);
  }

  function drawLatency() {
    const canvas = $('#latency-chart');
    const { g, width, height } = prepare(canvas);
    const l = state.latency;
    if (!l) return;
    let top = 1;
    for (let i = 0; i < SECONDS; i++) top = Math.max(top, l.p99[i]);
    const dots = (values, fill) => {
      g.fillStyle = fill;
      const w = Math.max(2, width / SECONDS);
      for (let i = 0; i < SECONDS; i++) {
        if (l.decisions[i] === 0) continue;
        const y = height - 2 - (values[i] * (height - 16)) / top;
        g.fillRect((i * width) / SECONDS, y - 1, w, 2);
      }
    };
    dots(l.p99, colour('--denied'));
    dots(l.mean, colour('--allowed'));
    g.fillStyle = colour('--muted');
    g.font = '11px system-ui, sans-serif';
    g.fillText(top + ' µs (p99 red, mean green)', 4, 11);
    let n = 0, p99 = 0, sum = 0;
    for (let i = SECONDS - 10; i < SECONDS; i++) {
      n += l.decisions[i];
      sum += l.decisions[i] * l.mean[i];
      p99 = Math.max(p99, l.p99[i]);
    }
    $('#latency-now').textContent = n === 0
      ? 'no timed decisions in the last 10 s'
      : 'last 10 s: ' + (n / 10).toFixed(1) + ' decisions/s timed, mean ' + Math.round(sum / n) + ' µs, p99 ≤ ' + p99 + ' µs';
  }

  function lastSeconds(values, n) {
    let sum = 0;
    for (let i = SECONDS - n; i < SECONDS; i++) sum += values[i];
    return sum;
  }

  function total(values) {
    return lastSeconds(values, SECONDS);
  }

  function renderRates() {
    const box = $('#rates');
    const names = [...state.rates.keys()].sort();
    if (names.length === 0) {
      box.replaceChildren(el('p', { class: 'muted' }, 'No decisions in the last 15 minutes.'));
      return;
    }
    const rows = new Map([...box.querySelectorAll('.rate-row')].map((row) => [row.dataset.rule, row]));
    const ordered = [];
    for (const name of names) {
      const held = state.rates.get(name);
      let row = rows.get(name);
      if (!row) {
        row = el('div', { class: 'rate-row', 'data-rule': name },
          el('div', {}, el('div', { class: 'rate-name' }, name), el('div', { class: 'rate-now' })),
          el('canvas', { width: String(SECONDS), height: '90' }));
      }
      const allowed = lastSeconds(held.allowed, 10) / 10;
      const denied = lastSeconds(held.denied, 10) / 10;
      const shadow = lastSeconds(held.shadow, 10) / 10;
      let timed = 0;
      let micros = 0;
      for (let i = SECONDS - 10; i < SECONDS; i++) {
        timed += held.timed[i];
        micros += held.timed[i] * held.mean[i];
      }
      row.querySelector('.rate-now').textContent =
        'last 10 s: ' + allowed.toFixed(1) + ' allowed/s, ' + denied.toFixed(1) +
        (shadowBans(name) ? ' shadow-banned/s' : ' denied/s') +
        (shadow > 0 ? ', ' + shadow.toFixed(1) + ' shadow/s' : '') +
        (timed > 0 ? ', mean ' + Math.round(micros / timed) + ' µs' : '');
      row.dataset.allowed = String(total(held.allowed));
      row.dataset.denied = String(total(held.denied));
      row.dataset.shadowDenied = String(total(held.shadow));
      drawRates(row.querySelector('canvas'), held);
      ordered.push(row);
    }
    box.replaceChildren(...ordered);
  }

  function limitsText(d) {
    const one = (l) => l.limit + ' / ' + l.window + (l.algorithm && l.algorithm !== d.algorithm ? ' ' + l.algorithm : '') + (l.burst !== undefined && l.burst !== null ? ' burst ' + l.burst : '');
    if (d.limits) return d.limits.map(one).join(', ');
    return one(d);
  }

  /** Whether the rule's denials are shadow bans (answered as success, so "denied" would mislead). */
  function shadowBans(name) {
    const rule = (state.rules || []).find((r) => r.name === name);
    return !!rule && !rule.definition.shadow && rule.definition.onDenied === 'shadow_ban';
  }

  /** What a denial does: a 429, or a shadow ban (the caller sees success, the side effect is skipped). */
  function deniedText(d) {
    if (d.shadow) return 'never denies';
    return d.onDenied === 'shadow_ban' ? 'shadow ban' : 'reject';
  }

  function renderRules(rules) {
    state.rules = rules;
    const body = $('#rules tbody');
    body.replaceChildren(...rules.map((rule) => {
      const d = rule.definition;
      const edit = el('button', { type: 'button', 'data-edit': rule.name }, 'edit');
      edit.addEventListener('click', () => openEditor(rule));
      return el('tr', { 'data-rule': rule.name },
        el('td', {}, rule.name), el('td', {}, d.algorithm || ''), el('td', {}, limitsText(d)),
        el('td', {}, d.shadow ? 'yes' : 'no'), el('td', {}, deniedText(d)), el('td', {}, d.leases || 'auto'),
        el('td', {}, rule.failurePolicy || '—'), el('td', {}, rule.origin.replace(/_/g, ' ')), el('td', {}, edit));
    }));
    const select = $('#try-form select[name=rule]');
    const chosen = select.value;
    select.replaceChildren(...rules.map((rule) => el('option', {}, rule.name)));
    if (rules.some((rule) => rule.name === chosen)) select.value = chosen;
  }

  function number(n) {
    return Number(n).toLocaleString('en-US');
  }

  function renderLeases(leases) {
    const items = [['granted', leases.granted], ['permits leased', leases.permitsLeased], ['answered locally', leases.answeredLocally],
      ['returned', leases.returned], ['expired unused', leases.expiredUnused], ['denied locally', leases.deniedLocally]];
    $('#leases').replaceChildren(...items.map(([label, value]) => el('div', {}, el('b', {}, number(value)), label)));
  }

  function renderGrid(grid, nodes) {
    const members = grid.members;
    $('#grid-summary').textContent = grid.clusterName === ''
      ? 'No grid: a limiter in this process (' + nodes.join(', ') + ').'
      : 'Cluster ' + grid.clusterName + ': ' + members.length + ' members, ' + grid.partitionCount + ' partitions, ' +
        (members.every((m) => m.answered && m.safe) ? 'all backups in place.' : 'not every member answered with its backups in place.');
    $('#members tbody').replaceChildren(...members.map((m) => el('tr', {},
      el('td', {}, m.address), el('td', {}, m.answered ? 'yes' : 'no answer'), el('td', { class: 'num' }, m.partitionsOwned),
      el('td', { class: 'num' }, number(m.keysOwned)), el('td', {}, m.safe ? 'yes' : 'no'),
      el('td', { class: 'num' }, m.migrationsCompleted + (m.migrationsFailed ? ' (' + m.migrationsFailed + ' failed)' : '')),
      el('td', { class: 'num' }, m.clients.length))));
    $('#clients tbody').replaceChildren(...(grid.clients.length === 0
      ? [el('tr', {}, el('td', { colspan: '3', class: 'muted' }, 'none'))]
      : grid.clients.map((c) => el('tr', {}, el('td', {}, c.name + ' ' + c.uuid.slice(0, 8)), el('td', {}, c.type), el('td', {}, c.address)))));
  }

  function renderFrontEnds(frontEnds) {
    const before = state.frontEndsBefore;
    const now = Date.now();
    const rows = frontEnds.map((front) => {
      const commands = front.commands.map((c) => {
        const key = front.name + ' ' + c.command;
        const earlier = before ? before.counts.get(key) : undefined;
        const rate = earlier === undefined ? '' : ((c.requests - earlier) * 1000 / Math.max(1, now - before.at)).toFixed(1) + '/s';
        return el('tr', {}, el('td', {}, c.command), el('td', { class: 'num' }, number(c.requests)),
          el('td', { class: 'num' }, number(c.errors)), el('td', { class: 'num' }, rate));
      });
      return el('div', { 'data-front-end': front.name },
        el('h3', {}, front.name + ' ', el('span', { class: 'muted' }, front.listensOn.join(', ') + (front.connections >= 0 ? ' · ' + front.connections + ' connections' : ''))),
        el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'command'), el('th', { class: 'num' }, 'requests'), el('th', { class: 'num' }, 'errors'), el('th', { class: 'num' }, 'now'))),
          el('tbody', {}, ...commands)));
    });
    $('#frontends').replaceChildren(...rows);
    const counts = new Map();
    for (const front of frontEnds) for (const c of front.commands) counts.set(front.name + ' ' + c.command, c.requests);
    state.frontEndsBefore = { at: now, counts };
  }

  async function refreshStats() {
    const seconds = state.until === null ? SECONDS : 30;
    const answer = await api('GET', '/v1/stats?seconds=' + seconds, undefined, false);
    if (answer.status !== 200) {
      setStatus('stats: ' + (answer.json ? answer.json.message : 'HTTP ' + answer.status), false);
      return;
    }
    const body = answer.json;
    $('#node').textContent = body.node.mode + ' node ' + body.node.name;
    splice(body.stats);
    renderRates();
    drawLatency();
    renderRules(body.rules);
    renderLeases(body.stats.leases);
    renderGrid(body.stats.grid, body.stats.nodes);
    renderFrontEnds(body.stats.frontEnds);
    state.untrackedDenials = body.stats.untrackedDenials;
    const missing = body.stats.grid.members.filter((m) => !m.answered).length;
    setStatus('updated ' + new Date().toLocaleTimeString() + (missing ? ' · ' + missing + ' member(s) did not answer' : ''), missing === 0);
  }

  async function refreshKeys() {
    const useToken = state.token !== '' && !state.tokenRefused;
    const answer = await api('GET', '/v1/stats/limited-keys?top=10', undefined, useToken);
    if (answer.status === 401 || answer.status === 403) {
      state.tokenRefused = true;
      showTokenState();
      return;
    }
    if (answer.status !== 200) return;
    const body = answer.json;
    state.masked = body.masked;
    showTokenState();
    $('#keys-note').textContent = body.masked
      ? 'Key texts are masked: enter the admin token to see them.'
      : 'Each key was denied between "at least" and "at most" times; a key not listed at most the figure under its rule.';
    if (state.untrackedDenials > 0) {
      $('#keys-note').textContent += ' ' + number(state.untrackedDenials) +
        ' denials since the nodes started were not sketched (a full buffer, or too many rules denying at once); the figures hold for the others.';
    }
    const blocks = body.rules.map((rule) => el('div', { class: 'keys-rule', 'data-rule': rule.rule },
      el('h3', {}, rule.rule + ' ', el('span', { class: 'muted' }, number(rule.total) + ' denials; unlisted keys ≤ ' + number(rule.unlistedAtMost))),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'key'), el('th', { class: 'num' }, 'at most'), el('th', { class: 'num' }, 'at least'))),
        el('tbody', {}, ...rule.keys.map((k) => el('tr', {}, el('td', { class: 'key' }, k.key),
          el('td', { class: 'num' }, number(k.count)), el('td', { class: 'num' }, number(k.count - k.error))))))));
    $('#keys').replaceChildren(...(blocks.length ? blocks : [el('p', { class: 'muted' }, 'No denials in the last two minutes.')]));
  }

  async function poll() {
    try {
      await refreshStats();
      await refreshKeys();
    } catch (e) {
      setStatus('cannot reach the node: ' + e.message, false);
    }
    setTimeout(poll, POLL_MS);
  }

  // ------------------------------------------------------------------ admin token

  function showTokenState() {
    const shown = $('#token-state');
    if (state.token === '') {
      shown.textContent = state.masked ? 'no token: keys masked' : 'this node has no admin token: keys shown';
    } else if (state.tokenRefused) {
      shown.textContent = '✗ token refused';
    } else {
      shown.textContent = '✓ token accepted';
    }
    shown.className = state.tokenRefused ? 'error' : 'muted';
  }

  async function useToken(event) {
    event.preventDefault();
    state.token = $('#token').value.trim();
    $('#token').value = '';
    state.tokenRefused = false;
    if (state.token) sessionStorage.setItem(TOKEN_KEY, state.token); else sessionStorage.removeItem(TOKEN_KEY);
    if (state.token) {
      const answer = await api('GET', '/v1/stats/limited-keys?top=1', undefined, true);
      state.tokenRefused = answer.status === 401 || answer.status === 403;
    }
    showTokenState();
    await refreshKeys();
  }

  // ------------------------------------------------------------------ rule editor

  // Every field of a rule body but the two checkboxes: a PUT replaces the rule, so a field the form
  // did not carry back would be reset to its default (a shadow ban quietly turned into a 429).
  const EDIT_FIELDS = ['algorithm', 'limit', 'window', 'burst', 'buckets', 'permitTtl', 'limits', 'leases', 'onDenied', 'release'];

  function openEditor(rule) {
    const form = $('#rule-form');
    const d = rule.definition;
    state.editing = rule.name;
    $('#rule-form-name').textContent = rule.name;
    for (const name of EDIT_FIELDS) {
      const value = d[name];
      form.elements[name].value = value === undefined || value === null ? '' : (typeof value === 'object' ? JSON.stringify(value) : String(value));
    }
    form.elements.shadow.checked = !!d.shadow;
    form.elements.countDenied.checked = !!d.countDenied;
    clearErrors();
    $('#rule-saved').textContent = '';
    form.hidden = false;
  }

  function clearErrors() {
    for (const error of document.querySelectorAll('#rule-form .error')) error.textContent = '';
  }

  function showError(message) {
    const match = /^([A-Za-z]+)(\[\d+\])?(\.[A-Za-z]+)?: /.exec(message || '');
    const field = match && document.querySelector('#rule-form .error[data-field="' + match[1] + '"]') ? match[1] : '';
    document.querySelector('#rule-form .error[data-field="' + field + '"]').textContent = message;
  }

  async function saveRule(event) {
    event.preventDefault();
    clearErrors();
    const form = $('#rule-form');
    const body = {};
    for (const name of EDIT_FIELDS) {
      const text = form.elements[name].value.trim();
      if (text === '') continue;
      if (name === 'limits') {
        try {
          body.limits = JSON.parse(text);
        } catch (e) {
          showError('limits: is not JSON: ' + e.message);
          return;
        }
      } else if (['limit', 'burst', 'buckets'].includes(name) && /^-?\d+$/.test(text)) {
        body[name] = Number(text);
      } else {
        body[name] = text;
      }
    }
    body.shadow = form.elements.shadow.checked;
    body.countDenied = form.elements.countDenied.checked;
    const answer = await api('PUT', '/v1/rules/' + encodeURIComponent(state.editing), body, true);
    if (answer.status === 200 || answer.status === 201) {
      $('#rule-saved').textContent = 'saved ' + new Date().toLocaleTimeString();
      await refreshStats();
      return;
    }
    showError(answer.json ? answer.json.message : 'HTTP ' + answer.status);
  }

  // ------------------------------------------------------------------ try a key

  async function tryKey(check) {
    const form = $('#try-form');
    const rule = form.elements.rule.value;
    const key = form.elements.key.value;
    const out = $('#try-result');
    if (!rule || key === '') {
      out.className = 'result denied';
      out.textContent = 'choose a rule and type a key';
      return;
    }
    let answer;
    if (check) {
      const cost = /^\d+$/.test(form.elements.cost.value.trim()) ? Number(form.elements.cost.value.trim()) : form.elements.cost.value;
      answer = await api('POST', '/v1/check', { rule, key, cost }, false);
    } else {
      answer = await api('GET', '/v1/limits/' + encodeURIComponent(rule) + '/' + encodeURIComponent(key), undefined, false);
    }
    const j = answer.json || {};
    if (j.error) {
      out.className = 'result denied';
      out.textContent = j.message;
      return;
    }
    out.className = 'result ' + (j.allowed ? 'allowed' : 'denied');
    out.textContent = (check ? 'check: ' : 'peek (nothing counted): ') + (j.allowed ? 'allowed' : 'denied') +
      ', ' + j.remaining + ' of ' + j.limit + ' left' + (j.retryAfterMs ? ', retry after ' + j.retryAfterMs + ' ms' : '') +
      ', full again in ' + j.resetAfterMs + ' ms\n' + JSON.stringify(j);
  }

  // ------------------------------------------------------------------ start

  document.addEventListener('DOMContentLoaded', () => {
    $('#token-form').addEventListener('submit', useToken);
    $('#token-clear').addEventListener('click', () => {
      state.token = '';
      state.tokenRefused = false;
      sessionStorage.removeItem(TOKEN_KEY);
      showTokenState();
    });
    $('#rule-form').addEventListener('submit', saveRule);
    $('#rule-cancel').addEventListener('click', () => { $('#rule-form').hidden = true; });
    $('#try-form').addEventListener('submit', (event) => { event.preventDefault(); tryKey(false); });
    $('#try-check').addEventListener('click', () => tryKey(true));
    showTokenState();
    poll();
  });
})();
