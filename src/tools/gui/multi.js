// The multi-player page: draws the table the server sends
// (/api/multi/state, long polled), builds the person's turn from the
// legal actions the server lists (/api/multi/choices) — by clicking on the
// board (a ship, then its target: each action comes with the click
// sequences that choose it, as on the two-player page) or on the list of
// actions — and sends commands. The server referees everything; the page
// keeps only the actions of the turn being built and the clicks so far.
'use strict';

// Owner colours, chosen apart from the four piece colours so that a
// fleet's owner never reads as a piece colour; each fleet also carries its
// seat mark.
const OWNER_COLOURS = ['#9b59b6', '#00a896', '#e84393', '#a1887f', '#78909c', '#ff8f00'];
const PIECES = ['r1', 'r2', 'r3', 'y1', 'y2', 'y3', 'g1', 'g2', 'g3', 'b1', 'b2', 'b3'];
let state = null;
let version = 0;
let pending = [];
let choicesAsked = null;
let choices = null;    // the last /api/multi/choices answer while building
let selection = [];    // the board clicks so far towards the next action

const $ = (id) => document.getElementById(id);

function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

function showMessage(text, error) {
  $('message').textContent = text;
  $('message').classList.toggle('error', !!error);
}

async function post(path, body) {
  const reply = await fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body || {}),
  });
  const answer = await reply.json().catch(() => ({ error: 'the server sent no JSON' }));
  if (!reply.ok) showMessage(answer.error || 'refused', true);
  return { ok: reply.ok, answer };
}

async function poll() {
  for (;;) {
    try {
      const reply = await fetch('/api/multi/state?since=' + version);
      const table = await reply.json();
      if (table.version !== version) {
        version = table.version;
        state = table;
        render();
      }
    } catch (error) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

function piece(text, kind) {
  const made = element('span', `piece ${kind} colour-${text[0]} size${text[1]}`, text[1]);
  made.title = text;
  return made;
}

function ownerChip(seat) {
  const chip = element('span', 'owner', state.seats[seat] ? state.seats[seat].mark : '?');
  chip.style.background = OWNER_COLOURS[seat];
  return chip;
}

// Gives a drawn element its click key, glowing when the key may be
// clicked next and marked when it is part of the clicks so far.
function mark(node, key, keys) {
  node.dataset.key = key;
  if (keys.has(key)) node.classList.add('choosable');
  if (selection.includes(key)) node.classList.add('selected');
}

function systemCard(system, keys) {
  const card = element('div', 'system');
  card.dataset.system = system.name;
  mark(card, `sys:${system.name}`, keys);
  const title = element('div', 'name', system.name);
  if (system.home !== null) {
    card.classList.add('home');
    card.style.borderColor = OWNER_COLOURS[system.home];
    title.prepend(ownerChip(system.home), ' ');
    if (system.destroyed) {
      card.classList.add('destroyed');
      title.append(' (destroyed)');
    }
  }
  card.append(title);
  const stars = element('div', 'stars');
  for (const star of system.stars) stars.append(piece(star, 'star'));
  card.append(stars);
  system.ships.forEach((fleet, seat) => {
    if (fleet.length === 0) return;
    const row = element('div', 'fleet');
    row.dataset.owner = seat;
    row.style.borderColor = OWNER_COLOURS[seat];
    row.append(ownerChip(seat));
    for (const ship of fleet) {
      const made = piece(ship, 'ship');
      mark(made, `ship:${system.name}:${seat}:${ship}`, keys);
      row.append(made);
    }
    card.append(row);
  });
  // A catastrophe that may be triggered here is a badge to click.
  for (const key of keys) {
    const [kind, where, colour] = key.split(':');
    if (kind !== 'cat' || where !== system.name) continue;
    const badge = element('button', 'catastrophe', `catastrophe: ${colour}`);
    badge.type = 'button';
    mark(badge, key, keys);
    card.append(badge);
  }
  return card;
}

// The bank: its pieces (built, traded for, discovered) on a background
// that takes a sacrificed ship.
function drawBank(bank, keys) {
  const box = $('bank');
  box.replaceChildren(element('span', 'label', 'Bank'));
  mark(box, 'bankzone', keys);
  for (const [name, count] of bank) {
    if (count === 0) continue;
    const made = piece(name, 'ship');
    made.title = `${name} (${count} left)`;
    mark(made, `bank:${name}`, keys);
    const holder = element('span', 'bank-piece');
    holder.append(made, element('small', '', `×${count}`));
    box.append(holder);
  }
}

// The homes go round an ellipse, seat 0 at the bottom and the turn order
// clockwise; the colonies fill the middle.
function drawMap() {
  const map = $('map');
  map.replaceChildren();
  const building = state.yourTurn && choices !== null;
  const systems = building ? choices.systems : state.systems;
  const keys = building ? nextKeys() : new Set();
  drawBank(building ? choices.bank : state.bank, keys);
  const homes = systems.filter((system) => system.home !== null);
  const count = homes.length;
  for (const system of homes) {
    if (system.stars.length === 0 && !system.destroyed) continue;
    const card = systemCard(system, keys);
    const angle = Math.PI / 2 + (2 * Math.PI * system.home) / count;
    card.style.left = `${490 + 395 * Math.cos(angle)}px`;
    card.style.top = `${350 + 280 * Math.sin(angle)}px`;
    map.append(card);
  }
  const colonies = element('div');
  colonies.id = 'colonies';
  for (const system of systems.filter((system) => system.home === null)) {
    colonies.append(systemCard(system, keys));
  }
  map.append(colonies);
}

function drawSeats() {
  const list = $('seats');
  list.replaceChildren();
  for (const seat of state.seats) {
    const item = element('li');
    item.dataset.seat = seat.seat;
    item.style.borderColor = OWNER_COLOURS[seat.seat];
    item.append(ownerChip(seat.seat), ` ${seat.name} (${seat.kind})`);
    if (seat.seat === state.toMove && !state.result) item.classList.add('to-move');
    if (!seat.inGame) {
      item.classList.add('out');
      item.append(seat.resigned ? ' — resigned' : ' — out');
    }
    if (seat.dropped) {
      const reason = element('span', 'dropped', ` (${seat.dropped})`);
      item.dataset.dropped = seat.dropped;
      item.append(reason);
    }
    if (seat.target !== null) item.append(` → target ${state.seats[seat.target].name}`);
    if (seat.alignment) {
      const badge = element('span', `alignment-${seat.alignment}`, ` ${seat.alignment}`);
      badge.dataset.alignment = seat.alignment;
      item.append(badge);
    }
    if (seat.thinking) item.append(' (thinking)');
    list.append(item);
  }
}

function drawTurns() {
  const list = $('turns');
  list.replaceChildren();
  for (const turn of state.turns) {
    const item = element('li', turn.number - 1 === state.shown ? 'shown' : '', `${state.seats[turn.seat].mark}: ${turn.text}`);
    item.dataset.ply = turn.number - 1;
    item.addEventListener('click', () => goto(turn.number - 1));
    list.append(item);
  }
  const shown = list.querySelector('.shown');
  if (shown) shown.scrollIntoView({ block: 'nearest' });
}

function drawStatus() {
  const status = $('status');
  status.dataset.turns = state.turns.length;
  status.dataset.shown = state.shown;
  if (state.seats.length === 0) {
    status.textContent = 'no game yet';
  } else if (state.mode === 'review') {
    status.textContent = `review: before turn ${state.shown + 1} of ${state.turns.length}`;
  } else if (state.result) {
    status.textContent = `game over after ${state.turns.length} turns: ${state.result}`;
  } else {
    const mover = state.seats[state.toMove];
    status.textContent = `turn ${state.turns.length + 1}: ${mover.name} (${mover.mark}) to move` + (state.yourTurn ? ' — your turn' : '');
  }
  $('result').textContent = state.result || '';
}

function render() {
  if (wanted === state.shown) wanted = null;
  drawStatus();
  drawSeats();
  drawTurns();
  showMessage(state.message, state.error);
  $('position').textContent = state.position;
  $('play').hidden = !state.yourTurn;
  if (!state.yourTurn) {
    pending = [];
    choicesAsked = null;
    choices = null;
    selection = [];
  } else if (choicesAsked !== state.turns.length) {
    pending = [];
    choices = null;
    selection = [];
    choicesAsked = state.turns.length;
    refreshChoices();
  }
  drawMap();
}

// Fills a select, keeping its choice when it is still offered.
function fillSelect(select, options) {
  const kept = select.value;
  select.replaceChildren(...options.map((option) => {
    const made = element('option', '', option);
    made.value = option;
    return made;
  }));
  if (options.includes(kept)) select.value = kept;
}

// ---- building a turn by clicking on the board --------------------------

// The actions whose click sequences begin with the clicks so far.
function candidates() {
  if (!choices) return [];
  return choices.actions.filter((action) => action.paths.some((path) =>
    selection.every((key, index) => path[index] === key)));
}

// The keys that may be clicked next.
function nextKeys() {
  const keys = new Set();
  for (const action of candidates()) {
    for (const path of action.paths) {
      if (path.length > selection.length && selection.every((key, index) => path[index] === key)) {
        keys.add(path[selection.length]);
      }
    }
  }
  return keys;
}

// A home is the whole setup turn: chosen, it is played at once.
function chooseAction(token) {
  if (choices && choices.setup) {
    selection = [];
    playTurn(token);
    return;
  }
  pending.push(token);
  selection = [];
  refreshChoices();
}

// A click on the key `key`: an action is chosen once the clicks so far
// name exactly one.
function clickKey(key) {
  selection = selection.concat([key]);
  const matching = candidates();
  const complete = matching.filter((action) => action.paths.some((path) =>
    path.length === selection.length && selection.every((k, index) => path[index] === k)));
  if (complete.length === 1 && matching.length === 1) {
    chooseAction(complete[0].token);
    return;
  }
  drawPending();
  drawMap();
}

function drawPending() {
  const chosen = pending.join(', ');
  const clicked = selection.length ? ` [${selection.join(' → ')}]` : '';
  $('pending').textContent = chosen + clicked;
}

function boardClick(event) {
  if (!choices) return;
  const keys = nextKeys();
  for (let node = event.target; node && node !== document.body; node = node.parentNode) {
    const key = node.dataset && node.dataset.key;
    if (key && keys.has(key)) {
      clickKey(key);
      return;
    }
    // A bank piece that is not offered is not a click on the bank behind
    // it (which would sacrifice the chosen ship).
    if (key && key.startsWith('bank:')) return;
  }
}

async function refreshChoices() {
  drawPending();
  const { ok, answer } = await post('/api/multi/choices', { actions: pending });
  const box = $('choices');
  box.replaceChildren();
  if (!ok) return;
  choices = answer;
  selection = [];
  drawMap();
  $('home-chooser').hidden = !answer.setup;
  if (answer.setup) {
    const bank = state.bank.map(([name]) => name);
    fillSelect($('home-star1'), bank);
    fillSelect($('home-star2'), ['-', ...bank]);
    fillSelect($('home-ship'), bank.slice().reverse());
  }
  // The homes are too many for buttons: the chooser and the bank's
  // pieces make them.
  for (const choice of answer.setup ? [] : answer.actions) {
    const button = element('button', '', choice.text);
    button.type = 'button';
    button.dataset.token = choice.token;
    button.addEventListener('click', () => chooseAction(choice.token));
    box.append(button);
  }
  $('end-turn').disabled = !answer.canEnd;
  box.dataset.turn = state.turns.length;
}

async function playTurn(text) {
  const { ok } = await post('/api/multi/turn', { turn: text });
  if (ok) {
    pending = [];
    $('turn-text').value = '';
  }
}

function seatKinds() {
  const count = Number($('seat-count').value);
  const box = $('seat-kinds');
  const kept = [...box.querySelectorAll('select')].map((select) => select.value);
  box.replaceChildren();
  for (let seat = 0; seat < count; seat++) {
    const select = element('select');
    select.id = `seat-${seat}`;
    select.style.borderColor = OWNER_COLOURS[seat];
    fillSelect(select, ['person', 'engine1', 'engine2']);
    select.value = kept[seat] || (seat === 0 ? 'person' : 'engine1');
    box.append(select);
  }
}

function newGame(watch) {
  const seats = [...$('seat-kinds').querySelectorAll('select')].map((select) => (watch ? 'engine1' : select.value));
  const nodes = Number($('nodes').value) || 1000;
  post('/api/multi/new', { seats, victory: $('victory').value, nodes });
}

// The turn last asked for, so that steps taken faster than the state
// comes back count from it rather than from the shown one.
let wanted = null;

function shownNow() {
  return wanted === null ? state.shown : wanted;
}

function goto(ply) {
  wanted = Math.max(0, Math.min(ply, state.turns.length));
  post('/api/multi/goto', { ply: wanted });
}

$('seat-count').addEventListener('change', seatKinds);
$('setup').addEventListener('submit', (event) => { event.preventDefault(); newGame(false); });
$('watch').addEventListener('click', () => newGame(true));
$('end-turn').addEventListener('click', () => playTurn(pending.join(',')));
$('pass-turn').addEventListener('click', () => playTurn('pass'));
$('clear-turn').addEventListener('click', () => { pending = []; refreshChoices(); });
$('map').addEventListener('click', boardClick);
$('bank').addEventListener('click', boardClick);
$('resign').addEventListener('click', () => post('/api/multi/resign', {}));
$('create-home').addEventListener('click', () => {
  const stars = [$('home-star1').value, $('home-star2').value];
  playTurn(`home.${stars[0]}.${stars[1]}.${$('home-ship').value}`);
});
$('typed').addEventListener('submit', (event) => { event.preventDefault(); playTurn($('turn-text').value); });
$('record-file').addEventListener('change', async () => {
  const file = $('record-file').files[0];
  if (file) post('/api/multi/load', { record: await file.text() });
});
$('first').addEventListener('click', () => goto(0));
$('previous').addEventListener('click', () => goto(shownNow() - 1));
$('next').addEventListener('click', () => goto(shownNow() + 1));
$('last').addEventListener('click', () => goto(state.turns.length));
document.addEventListener('keydown', (event) => {
  if (!state || event.target.tagName === 'INPUT') return;
  if (event.key === 'Escape') { selection = []; drawPending(); drawMap(); return; }
  if (event.key === 'ArrowLeft') goto(shownNow() - 1);
  if (event.key === 'ArrowRight') goto(shownNow() + 1);
});
seatKinds();
poll();
