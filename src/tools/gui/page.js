// Supernova's page: draws the state the server sends (long polling
// /api/state) as SVG and sends the person's clicks and typed turns back.
// The server and the rules core decide everything; this script only draws
// and forwards. Turns are built action by action: /api/choices lists the
// legal next actions, each with the click sequences ("paths") that choose it.
// Every command is a POST of one JSON object, and every answer is JSON.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const COLOURS = { r: '#e0453a', y: '#f2c230', g: '#3dbb4c', b: '#3f7ee8' };
const DARK = { r: '#8c221b', y: '#8f6f0c', g: '#1d6b27', b: '#1d4590' };
const COLOUR_WORDS = { r: 'red', y: 'yellow', g: 'green', b: 'blue' };
const SIZE = { 1: [18, 24], 2: [25, 32], 3: [32, 41] }; // [base, height]

let state = null;          // the last state from the server
let turn = { prefix: [], selection: [], choices: null, key: '' };
let shownHwpn = null;      // the position last written into the HWPN box
let drawnBoard = '';       // what the board shows now (see drawTurn)
let pendingPly = null;     // the turn asked for and not shown yet (fast key presses add up)

const $ = (id) => document.getElementById(id);

function element(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes || {})) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

async function post(path, request) {
  const response = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(request || {}),
  });
  const data = await response.json().catch(() => ({ error: 'the server sent no answer' }));
  if (!response.ok || data.error) throw new Error(data.error || response.statusText);
  return data;
}

function say(text, isError) {
  const box = $('message');
  box.textContent = text || '';
  box.className = isError ? 'error' : '';
}

async function command(path, request) {
  try {
    return await post(path, request);
  } catch (error) {
    say(error.message, true);
    return null;
  }
}

// ---- pieces -------------------------------------------------------------

// A pyramid: upright for a star or a bank piece, lying on its side for a
// ship (pointing right for player 0, left for player 1).
function pyramid(parent, piece, x, y, facing) {
  const colour = piece[0];
  const size = Number(piece[1]);
  const [base, height] = SIZE[size];
  let points;
  if (facing === 'up') {
    points = [[x - base / 2, y + height / 2], [x + base / 2, y + height / 2], [x, y - height / 2]];
  } else {
    const tip = facing === 'right' ? 1 : -1;
    points = [[x - tip * height / 2, y - base / 2], [x - tip * height / 2, y + base / 2], [x + tip * height / 2, y]];
  }
  element('polygon', {
    points: points.map((p) => p.join(',')).join(' '),
    fill: COLOURS[colour],
  }, parent);
  // Pips tell the size at a glance.
  for (let pip = 0; pip < size; pip++) {
    const offset = (pip - (size - 1) / 2) * 5;
    const [px, py] = facing === 'up' ? [x + offset, y + height / 2 - 5]
      : [x - (facing === 'right' ? 1 : -1) * (height / 2 - 5), y + offset];
    element('circle', { cx: px, cy: py, r: 1.6, class: 'pip' }, parent);
  }
  return height;
}

// ---- board --------------------------------------------------------------

function layout(board) {
  const places = {};
  const rows = { 1: [], 2: [], 3: [] };
  for (const system of board.systems) {
    if (system.home === 0) places[system.name] = [108, 270];
    else if (system.home === 1) places[system.name] = [852, 270];
    else rows[system.stars[0][1]].push(system.name);
  }
  const rowY = { 1: 95, 2: 250, 3: 405 };
  for (const size of [1, 2, 3]) {
    const names = rows[size];
    names.forEach((name, index) => {
      const x = 235 + (490 * (index + 0.5)) / names.length;
      places[name] = [x, rowY[size] + (names.length > 3 && index % 2 ? 30 : 0)];
    });
  }
  return places;
}

// The width of a non-home system's box: narrower when a row is crowded.
function systemWidth(board, system) {
  if (system.home !== null) return 196;
  const inRow = board.systems.filter((other) => other.home === null && other.stars[0][1] === system.stars[0][1]).length;
  return Math.max(100, Math.min(164, 490 / Math.max(1, inRow) - 6));
}

function connected(first, second) {
  const sizes = new Set(first.stars.map((star) => star[1]));
  return !second.stars.some((star) => sizes.has(star[1]));
}

function drawBoard(board, nextKeys, selected) {
  const svg = $('board');
  svg.textContent = '';
  const places = layout(board);
  const systems = board.systems;
  const lines = element('g', {}, svg);
  for (let i = 0; i < systems.length; i++) {
    for (let j = i + 1; j < systems.length; j++) {
      if (!connected(systems[i], systems[j])) continue;
      const [x1, y1] = places[systems[i].name];
      const [x2, y2] = places[systems[j].name];
      element('line', { x1, y1, x2, y2, class: 'connection' }, lines);
    }
  }
  const mark = (node, key) => {
    node.setAttribute('data-key', key);
    if (nextKeys.has(key)) node.classList.add('choosable');
    if (selected.includes(key)) node.classList.add('selected');
  };
  for (const system of systems) {
    const [x, y] = places[system.name];
    const home = system.home !== null;
    const group = element('g', { class: 'system' + (home ? ' home' : ''), 'data-system': system.name }, svg);
    mark(group, 'sys:' + system.name);
    const width = systemWidth(board, system);
    const height = home ? 230 : 140;
    element('rect', { x: x - width / 2, y: y - height / 2, width, height, rx: 18, class: 'system-area' }, group);
    const title = element('text', { x, y: y - height / 2 - 6, 'text-anchor': 'middle' }, group);
    title.textContent = system.name + (home ? ` (home of player ${system.home})` : '');
    // Stars in the middle.
    const stars = element('g', { class: 'stars' }, group);
    element('circle', { cx: x, cy: y, r: 30, class: 'halo' }, stars);
    system.stars.forEach((star, index) => {
      const sx = x + (index - (system.stars.length - 1) / 2) * 34;
      const node = element('g', { class: 'piece star', 'data-piece': star }, stars);
      pyramid(node, star, sx, y, 'up');
    });
    // Ships: player 1 above the stars, player 0 below.
    for (const owner of [0, 1]) {
      const ships = system.ships[owner];
      const perRow = 5;
      ships.forEach((ship, index) => {
        const row = Math.floor(index / perRow);
        const inRow = Math.min(perRow, ships.length - row * perRow);
        const column = index % perRow;
        const sx = x + (column - (inRow - 1) / 2) * Math.min(34, (width - 24) / perRow);
        const band = owner === 0 ? y + 48 + row * 30 : y - 48 - row * 30;
        const node = element('g', {
          class: `piece ship owner${owner}`,
          'data-kind': 'ship', 'data-system': system.name, 'data-owner': owner, 'data-piece': ship,
        }, group);
        mark(node, `ship:${system.name}:${owner}:${ship}`);
        pyramid(node, ship, sx, band, owner === 0 ? 'right' : 'left');
      });
    }
    // Catastrophe badges where a colour is overpopulated.
    system.overpopulated.forEach((colour, index) => {
      const badge = element('g', { class: 'catastrophe', 'data-kind': 'catastrophe' }, group);
      mark(badge, `cat:${system.name}:${colour}`);
      const by = y + height / 2 + 4 + index * 20;
      element('rect', { x: x - 60, y: by, width: 120, height: 18, rx: 5 }, badge);
      const label = element('text', { x, y: by + 13, 'text-anchor': 'middle' }, badge);
      label.textContent = `catastrophe: ${COLOUR_WORDS[colour]}`;
    });
  }
  drawBank(svg, board.bank, mark);
}

function drawBank(svg, bank, mark) {
  const group = element('g', { class: 'bank', 'data-kind': 'bank' }, svg);
  mark(group, 'bankzone');
  element('rect', { x: 20, y: 498, width: 920, height: 92, rx: 10, class: 'bank-area' }, group);
  const title = element('text', { x: 34, y: 518 }, group);
  title.textContent = 'Bank';
  let column = 0;
  for (const colour of ['r', 'y', 'g', 'b']) {
    for (const size of [1, 2, 3]) {
      const piece = colour + size;
      const count = bank[piece] || 0;
      const x = 110 + column * 70 + Math.floor(column / 3) * 12;
      column++;
      if (count === 0) continue;
      const stack = element('g', { class: 'piece bank-piece', 'data-kind': 'bank', 'data-piece': piece }, group);
      mark(stack, 'bank:' + piece);
      for (let copy = 0; copy < count; copy++) pyramid(stack, piece, x + copy * 7, 556 - copy * 5, 'up');
      const label = element('text', { x: x + 4, y: 586, 'text-anchor': 'middle' }, stack);
      label.textContent = `${piece}×${count}`;
    }
  }
}

// ---- building a turn by clicking ---------------------------------------

function candidates() {
  if (!turn.choices) return [];
  const selection = turn.selection;
  return turn.choices.actions.filter((action) => action.paths.some((path) =>
    selection.every((key, index) => path[index] === key)));
}

function nextKeys() {
  const keys = new Set();
  for (const action of candidates()) {
    for (const path of action.paths) {
      if (turn.selection.every((key, index) => path[index] === key) && path.length > turn.selection.length) {
        keys.add(path[turn.selection.length]);
      }
    }
  }
  return keys;
}

async function loadChoices() {
  const key = `${state.version}`;
  turn.key = key;
  try {
    const choices = await post('/api/choices', { actions: turn.prefix });
    if (turn.key !== key) return;
    turn.choices = choices;
  } catch (error) {
    turn.choices = null;
    if (turn.prefix.length) {
      say(error.message, true);
      turn.prefix = [];
    }
  }
  turn.selection = [];
  drawTurn();
  // A turn with nothing left to do ends by itself (a setup, for one).
  if (turn.choices && turn.prefix.length && turn.choices.actions.length === 0 && turn.choices.cannotEnd === null) {
    endTurn();
  }
}

function chooseAction(action) {
  turn.prefix.push(action.token);
  turn.selection = [];
  loadChoices();
}

function click(key) {
  const selection = turn.selection.concat([key]);
  const matching = candidates().filter((action) => action.paths.some((path) =>
    selection.every((k, index) => path[index] === k)));
  const complete = matching.filter((action) => action.paths.some((path) =>
    path.length === selection.length && selection.every((k, index) => path[index] === k)));
  turn.selection = selection;
  if (complete.length === 1 && matching.length === 1) {
    chooseAction(complete[0]);
    return;
  }
  drawTurn();
}

// Ends the turn being built; under Red Alert the server's exact checkers
// are asked first, and a turn that lets the opponent win waits for the
// person's answer in the Red Alert box.
async function endTurn() {
  const text = turn.prefix.length ? turn.prefix.join(',') : 'pass';
  if (window.puzzles && puzzles.active) { puzzles.answer(text); return; }
  if (await redAlertAllows(text, null)) await sendTurn();
}

// Whether the turn `text` may be sent at once: true unless Red Alert
// warns of it, when the Red Alert box asks (and `typed` is the typed text
// to send if the person ends the turn anyway).
async function redAlertAllows(text, typed) {
  if (!state || state.mode !== 'play' || !(state.redAlertLevel > 0)) return true;
  const answer = await command('/api/check', { turn: text });
  if (!answer) return false;
  if (!answer.alert) return true;
  pendingTyped = typed;
  $('alert-text').textContent = answer.alert;
  $('red-alert-dialog').hidden = false;
  return false;
}

let pendingTyped = null;   // a typed turn waiting for the Red Alert answer

async function sendTyped(text) {
  if (await command('/api/turn', { turn: text })) $('turn-text').value = '';
}

async function sendTurn() {
  $('red-alert-dialog').hidden = true;
  if (pendingTyped !== null) {
    const typed = pendingTyped;
    pendingTyped = null;
    await sendTyped(typed);
    return;
  }
  const text = turn.prefix.length ? turn.prefix.join(',') : 'pass';
  const answer = await command('/api/turn', { turn: text });
  if (answer) {
    turn.prefix = [];
    turn.selection = [];
    turn.choices = null;
  }
}

// A click key in words: "ship:Home0:0:r1" is "player 0's r1 at Home0".
function keyText(key) {
  const [kind, ...rest] = key.split(':');
  if (kind === 'ship') return `player ${rest[1]}'s ${rest[2]} at ${rest[0]}`;
  if (kind === 'bank') return `${rest[0]} from the bank`;
  if (kind === 'sys') return rest[0];
  if (kind === 'bankzone') return 'the bank';
  return key;
}

function drawTurn() {
  const building = state.yourTurn && !state.result && turn.choices;
  const board = building ? turn.choices.board : state.board;
  const keys = building ? nextKeys() : new Set();
  // Redrawn only when it changes: a board rebuilt under the pointer (at each
  // live analysis line) would swallow the person's clicks.
  const signature = [board.hwpn, [...keys].join(','), turn.selection.join(',')].join('|');
  if (signature !== drawnBoard) {
    drawnBoard = signature;
    drawBoard(board, keys, turn.selection);
  }
  const list = building ? candidates() : [];
  $('selection').textContent = building
    ? (turn.prefix.length ? 'this turn: ' + turn.prefix.join(', ') : 'your turn') +
      (turn.selection.length ? ' · chosen: ' + turn.selection.map(keyText).join(' → ') : '')
    : '';
  const chooser = $('chooser');
  chooser.textContent = '';
  if (building && turn.selection.length) {
    for (const action of list.slice(0, 12)) {
      const button = document.createElement('button');
      button.textContent = action.text;
      button.onclick = () => chooseAction(action);
      chooser.appendChild(button);
    }
  }
  const all = $('choices');
  all.textContent = '';
  for (const action of list.slice(0, 150)) {
    const button = document.createElement('button');
    button.textContent = action.text;
    button.dataset.token = action.token;
    button.onclick = () => chooseAction(action);
    all.appendChild(button);
  }
  const canEnd = building && turn.choices.cannotEnd === null;
  $('end-turn').disabled = !canEnd || (turn.prefix.length === 0 && board.setup);
  $('end-turn').title = building && turn.choices.cannotEnd ? turn.choices.cannotEnd : '';
  $('pass-turn').disabled = !(building && turn.prefix.length === 0 && !board.setup);
  $('reset-turn').disabled = !(building && (turn.prefix.length || turn.selection.length));
}

// ---- panels -------------------------------------------------------------

function percent(perMille) {
  return (perMille / 10).toFixed(1) + '%';
}

function drawAnalysis() {
  const analysis = state.analysis;
  // The value of the shown position, or the latest one known before it.
  let known = null;
  for (let ply = state.ply; ply >= 0 && known === null; ply--) known = state.evaluations[ply] ?? null;
  const top = analysis.current && analysis.lines.length ? analysis.lines[0].winprob : null;
  const value = top !== null && top !== undefined ? top : (known !== null && known !== undefined ? known : 500);
  $('evalfill').style.height = value / 10 + '%';
  $('evalbar').dataset.value = value;
  $('evaltext').textContent = (value / 10).toFixed(0);
  const stats = $('analysis-stats');
  const lines = $('analysis-lines');
  lines.textContent = '';
  if (!analysis.current) {
    stats.textContent = state.analysing ? 'starting…' : '';
    return;
  }
  const nodes = analysis.nodes !== null ? analysis.nodes.toLocaleString('en') : '?';
  const rate = analysis.nps !== null ? Math.round(analysis.nps / 1000).toLocaleString('en') + 'k nodes/s' : '';
  stats.textContent = `engine ${analysis.engine} · depth ${analysis.depth ?? '?'} · ${nodes} nodes · ${rate}`;
  stats.dataset.nodes = analysis.nodes ?? 0;
  stats.dataset.updates = analysis.updates;
  for (const line of analysis.lines) {
    const item = document.createElement('li');
    const value = document.createElement('span');
    value.className = 'value';
    const score = line.score !== null ? ` (${line.score > 0 ? '+' : ''}${(line.score / 1000).toFixed(2)})` : '';
    const proof = line.proof ? ` proven ${line.proof} for the side to move` : '';
    value.textContent = (line.winprob !== null ? 'P0 ' + percent(line.winprob) : '?') + score + proof;
    item.appendChild(value);
    item.appendChild(document.createTextNode(' ' + line.turns.join(' → ')));
    lines.appendChild(item);
  }
}

function drawMoves() {
  const list = $('moves');
  list.textContent = '';
  state.turns.forEach((played, index) => {
    const item = document.createElement('li');
    item.textContent = `${state.playerNames[played.mover]}: ${played.sdg}`;
    item.className = 'p' + played.mover + (index + 1 === state.ply ? ' current' : '');
    item.onclick = () => goto(index + 1);
    list.appendChild(item);
  });
  const current = list.querySelector('.current');
  // Scrolls the list only (scrollIntoView would scroll the page as well).
  if (current && list.dataset.shown !== String(state.ply)) {
    list.scrollTop = current.offsetTop - list.clientHeight / 2;
  }
  list.dataset.shown = state.ply;
  drawExplanations(list);
  // The evaluation graph: player 0's win probability before each turn.
  const graph = $('graph');
  graph.textContent = '';
  const count = Math.max(1, state.evaluations.length - 1);
  element('line', { x1: 0, y1: 40, x2: 300, y2: 40, stroke: '#39415e', 'stroke-width': 1 }, graph);
  const points = [];
  state.evaluations.forEach((value, index) => {
    if (value !== null) points.push(`${(index / count) * 300},${80 - (value / 1000) * 80}`);
  });
  if (points.length) element('polyline', { points: points.join(' '), fill: 'none', stroke: '#ffd479', 'stroke-width': 2 }, graph);
  const x = (state.ply / count) * 300;
  element('line', { x1: x, y1: 0, x2: x, y2: 80, stroke: '#7d8cff', 'stroke-width': 2 }, graph);
  // Review's marks and variation (review.js).
  if (window.review) review.draw();
}

// Under each engine turn that comes with one, the engine's reason ("why?").
function drawExplanations(list) {
  state.turns.forEach((played, index) => {
    if (!played.explanation) return;
    const why = document.createElement('span');
    why.className = 'explanation';
    why.textContent = 'why? ' + played.explanation;
    list.children[index].appendChild(why);
  });
}

// The level choice, the handicap buttons, the hint and Red Alert.
function drawLearning() {
  const select = $('level');
  if (!select.options.length) {
    for (const level of state.levels) {
      const option = document.createElement('option');
      option.value = level.name;
      option.textContent = level.text;
      select.appendChild(option);
    }
    select.value = state.level;
  }
  const playing = state.mode === 'play' && !state.result;
  const hint = $('hint');
  hint.disabled = !(playing && state.yourTurn && state.tokens !== null && state.tokens > 0 && !state.hinting);
  hint.textContent = state.tokens === null ? 'Tactical Computer (off)' : `Tactical Computer (${state.tokens} left)`;
  hint.dataset.tokens = state.tokens === null ? '' : state.tokens;
  $('swap').disabled = !state.canSwap;
  $('game-handicaps').textContent = state.handicaps ? 'handicaps: ' + state.handicaps : '';
  const hintBox = $('hint-text');
  hintBox.textContent = '';
  if (state.hint) {
    hintBox.textContent = 'Tactical Computer suggests: ' + state.hint;
    if (state.hintExplanation) {
      const why = document.createElement('span');
      why.className = 'explanation';
      why.textContent = state.hintExplanation;
      hintBox.appendChild(why);
    }
  }
  const banner = $('red-alert-banner');
  banner.hidden = !(state.redAlert && state.yourTurn && state.mode === 'play');
  banner.textContent = state.redAlert || '';
  if (!state.yourTurn) $('red-alert-dialog').hidden = true;
}

function drawStatus() {
  const board = state.board;
  const mover = board.toMove;
  let text = `${state.mode} · turn ${state.ply + 1} of ${state.length + 1} · player ${mover} to move`;
  if (state.mode === 'play') text += mover === state.human ? ' (you)' : ' (engine)';
  if (state.result && state.ply === state.length) text = `${state.mode} · game over: ${state.result}`;
  $('status').textContent = text;
  $('status').dataset.ply = state.ply;
  $('status').dataset.length = state.length;
  for (const button of document.querySelectorAll('#modes button')) {
    const puzzling = window.puzzles && puzzles.active;
    button.classList.toggle('active', puzzling ? !button.dataset.mode : button.dataset.mode === state.mode);
  }
  const engines = state.engines.map((engine, index) =>
    `engine ${index + 1}: ${engine.name || engine.command}${engine.thinking ? ' (thinking)' : ''}${engine.running ? '' : ' (not running)'}`);
  $('engines').textContent = engines.join(' · ');
  $('resume').disabled = !state.paused;
  $('resign').disabled = state.mode !== 'play' || !!state.result;
  $('analyse').checked = state.analysing;
  $('scan').disabled = state.scanning || !(state.mode === 'review' || state.mode === 'analyse');
  // The box follows the position, but keeps what the person is typing.
  if (shownHwpn !== state.board.hwpn) {
    shownHwpn = state.board.hwpn;
    $('hwpn').value = shownHwpn;
  }
  say(state.message, state.messageIsError);
}

// The clocks tick here between the server's states.
let stateReceived = 0;
function drawClocks() {
  const box = $('clocks');
  if (!state || !state.clocks) { box.textContent = ''; return; }
  const running = state.result ? null : state.board.toMove;
  box.textContent = '';
  state.clocks.forEach((time, player) => {
    const left = Math.max(0, time - (player === running ? performance.now() - stateReceived : 0));
    const seconds = Math.floor(left / 1000);
    const clock = document.createElement('span');
    clock.textContent = `player ${player} ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
    if (player === running) clock.className = 'running';
    box.appendChild(clock);
  });
}
setInterval(drawClocks, 250);

function render(newState) {
  const previous = state;
  state = newState;
  stateReceived = performance.now();
  drawClocks();
  if (state.ply === pendingPly) pendingPly = null;
  drawStatus();
  drawLearning();
  drawAnalysis();
  drawMoves();
  const positionChanged = !previous || previous.ply !== state.ply || previous.length !== state.length ||
    previous.board.hwpn !== state.board.hwpn || previous.mode !== state.mode || previous.yourTurn !== state.yourTurn;
  if (positionChanged) {
    turn = { prefix: [], selection: [], choices: null, key: '' };
    if (state.yourTurn && !state.result) loadChoices();
  }
  drawTurn();
}

async function poll() {
  let version = 0;
  for (;;) {
    try {
      const response = await fetch('/api/state?since=' + version);
      const data = await response.json();
      version = data.version;
      render(data);
    } catch (error) {
      say('the server does not answer: is supernova gui still running?', true);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function goto(ply) {
  if (!state) return;
  pendingPly = Math.max(0, Math.min(state.length, ply));
  command('/api/goto', { ply: pendingPly });
}

function shownPly() {
  return pendingPly === null ? state.ply : pendingPly;
}

// ---- wiring -------------------------------------------------------------

$('board').addEventListener('click', (event) => {
  if (!turn.choices) return;
  const keys = nextKeys();
  for (let node = event.target; node && node !== event.currentTarget; node = node.parentNode) {
    const key = node.getAttribute && node.getAttribute('data-key');
    if (key && keys.has(key)) {
      click(key);
      return;
    }
    // A bank piece that is not offered is not a click on the bank behind it
    // (which would sacrifice the chosen ship).
    if (key && key.startsWith('bank:')) return;
  }
});

document.addEventListener('keydown', (event) => {
  if (event.target.closest && event.target.closest('input, textarea, select')) return;
  if (!state) return;
  const moves = { ArrowLeft: -1, ArrowRight: 1 };
  if (event.key in moves) goto(shownPly() + moves[event.key]);
  else if (event.key === 'Home') goto(0);
  else if (event.key === 'End') goto(state.length);
  else if (event.key === 'Escape') { turn.selection = []; drawTurn(); return; }
  else return;
  event.preventDefault();
});

let chosenMode = null;     // the mode last clicked, before the server's state says so
for (const button of document.querySelectorAll('#modes button')) {
  button.onclick = () => {
    if (window.puzzles) puzzles.leave();
    chosenMode = button.dataset.mode;
    command('/api/mode', { mode: chosenMode });
  };
}
// The time select's value ("movetime=1000", "nodes=300", "clock=60000+1000")
// as the server's time control.
function timeControl(value) {
  const [kind, amount] = value.split('=');
  if (kind === 'clock') {
    const [initial, increment] = amount.split('+').map(Number);
    return { clock: { initial, increment } };
  }
  return { [kind]: Number(amount) };
}
$('new-game').onclick = () => {
  const mode = (chosenMode || (state && state.mode)) === 'watch' ? 'watch' : 'play';
  const request = { mode, side: Number($('side').value), timeControl: timeControl($('time').value) };
  if (mode === 'play') {
    request.level = $('level').value;
    request.handicaps = {
      timewarp: Number($('timewarp').value),
      redAlert: Number($('red-alert').value),
      brainTransference: $('brain-transference').checked,
    };
    if ($('tokens').value !== '') request.handicaps.tokens = Number($('tokens').value);
  }
  command('/api/new', request);
};
$('hint').onclick = () => command('/api/hint');
$('swap').onclick = () => command('/api/swap');
$('alert-end').onclick = sendTurn;
$('alert-back').onclick = () => {
  $('red-alert-dialog').hidden = true;
  pendingTyped = null;
  turn.prefix = [];
  loadChoices();
  say('the turn was taken back: it is still your turn');
};
$('undo').onclick = () => command('/api/undo');
$('resign').onclick = () => command('/api/resign');
$('resume').onclick = () => command('/api/resume');
$('end-turn').onclick = endTurn;
$('pass-turn').onclick = () => { turn.prefix = []; endTurn(); };
$('reset-turn').onclick = () => { turn.prefix = []; loadChoices(); };
const analyse = () => command('/api/analyse', { on: $('analyse').checked, multipv: Number($('multipv').value) });
$('analyse').onchange = analyse;
$('multipv').onchange = analyse;
$('scan').onclick = () => command('/api/scan', { nodes: 1000 });
$('first').onclick = () => goto(0);
$('back').onclick = () => goto(shownPly() - 1);
$('forward').onclick = () => goto(shownPly() + 1);
$('last').onclick = () => goto(state.length);
$('graph').onclick = (event) => {
  const box = $('graph').getBoundingClientRect();
  goto(Math.round(((event.clientX - box.left) / box.width) * Math.max(1, state.length)));
};
$('typed').onsubmit = async (event) => {
  event.preventDefault();
  const text = $('turn-text').value;
  if (window.puzzles && puzzles.active) { puzzles.answer(text); return; }
  if (await redAlertAllows(text, text)) await sendTyped(text);
};
$('set-position').onclick = () => command('/api/position', { position: $('hwpn').value });
$('copy-position').onclick = async () => {
  const text = state ? state.board.hwpn : '';
  try {
    await navigator.clipboard.writeText(text);
    say('copied: ' + text);
  } catch (error) {
    $('hwpn').select();
    say('select and copy: ' + text);
  }
};
$('save-record').onclick = async (event) => {
  // Fetched first, so that a game that cannot be saved gets a message, not a file.
  event.preventDefault();
  const response = await fetch('/api/record');
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    say(data.error || 'the game could not be saved', true);
    return;
  }
  const link = document.createElement('a');
  link.href = URL.createObjectURL(await response.blob());
  link.download = 'supernova-game.sdg';
  link.click();
  URL.revokeObjectURL(link.href);
};
$('load-record').onclick = () => command('/api/load', { record: $('record-text').value });
$('record-file').onchange = () => {
  const file = $('record-file').files[0];
  if (!file) return;
  if (file.size > 1024 * 1024) { say('that file is larger than 1 MiB', true); return; }
  file.text().then((text) => command('/api/load', { record: text }));
};

poll();
