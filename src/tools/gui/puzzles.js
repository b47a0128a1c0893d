// The Puzzles page: positions from the tactics suites, set up on the board
// in Analyse mode, where the person builds a turn by clicking (or types
// one) as in play. The finished turn is not played: it goes to
// /api/puzzle/answer, where the rules core and the exact checkers judge it,
// and a wrong answer comes back with its refutation. Progress (solved or
// failed per puzzle) stays in the browser's local storage. Loaded after
// page.js, whose helpers ($, command, say, loadChoices, turn) it uses;
// page.js calls puzzles.answer and puzzles.leave through its hooks.
'use strict';

const PROGRESS_KEY = 'supernova.puzzles.progress';
const INDEX_KEY = 'supernova.puzzles.index';
const KIND_WORDS = {
  winInOne: 'win in one', mustDefend: 'must defend', twoTurn: 'two-turn defence', material: 'material',
};

const puzzles = {
  active: false,
  list: null,      // every puzzle, as /api/puzzles lists them
  index: 0,        // the puzzle shown
  judging: false,

  progress() {
    try { return JSON.parse(localStorage.getItem(PROGRESS_KEY)) || {}; } catch (error) { return {}; }
  },

  // A solved puzzle stays solved; a failed one is marked failed until solved.
  record(index, solved) {
    const progress = this.progress();
    if (progress[index] !== 'solved') progress[index] = solved ? 'solved' : 'failed';
    localStorage.setItem(PROGRESS_KEY, JSON.stringify(progress));
  },

  // The indices the kind filter lets through.
  shown() {
    const kind = $('puzzle-kind').value;
    return this.list.map((puzzle, index) => index).filter((index) => !kind || this.list[index].kind === kind);
  },

  async enter() {
    this.active = true;
    $('puzzle-panel').hidden = false;
    $('analysis-panel').hidden = true;
    $('puzzles-mode').classList.add('active');
    if (!this.list) {
      const response = await fetch('/api/puzzles');
      this.list = (await response.json()).puzzles;
    }
    const saved = Number(localStorage.getItem(INDEX_KEY));
    await this.show(Number.isInteger(saved) && saved < this.list.length ? saved : 0);
  },

  leave() {
    this.active = false;
    $('puzzle-panel').hidden = true;
    $('analysis-panel').hidden = false;
    $('puzzles-mode').classList.remove('active');
  },

  async show(index) {
    this.index = index;
    localStorage.setItem(INDEX_KEY, String(index));
    const puzzle = this.list[index];
    this.draw();
    $('puzzle-verdict').textContent = '';
    $('puzzle-verdict').className = '';
    $('puzzle-refutation').textContent = '';
    // The engine's analysis would give the answer away: it is turned off.
    if (await command('/api/mode', { mode: 'analyse' }) &&
        await command('/api/analyse', { on: false, multipv: Number($('multipv').value) })) {
      await command('/api/position', { position: puzzle.position });
    }
  },

  draw() {
    const puzzle = this.list[this.index];
    const shown = this.shown();
    const progress = this.progress();
    const solved = Object.values(progress).filter((mark) => mark === 'solved').length;
    $('puzzle-title').textContent = `Puzzle ${this.index + 1} of ${this.list.length} · ${KIND_WORDS[puzzle.kind]}`;
    $('puzzle-goal').textContent = `Goal: ${puzzle.goal} (player ${puzzle.position.trim().slice(-1)} to move)`;
    $('puzzle-source').textContent = puzzle.source ? `From ${puzzle.source}` : "From the engine's own games";
    const mark = progress[this.index];
    $('puzzle-mark').textContent = mark ? `you ${mark} this one` : 'not tried yet';
    $('puzzle-mark').dataset.mark = mark || '';
    $('puzzle-progress').textContent = `${solved} solved of ${this.list.length}`;
    $('puzzle-previous').disabled = shown.indexOf(this.index) <= 0;
    $('puzzle-next').disabled = shown.indexOf(this.index) === shown.length - 1;
  },

  step(direction) {
    const shown = this.shown();
    const at = shown.indexOf(this.index);
    const next = shown[at + direction];
    if (next !== undefined) this.show(next);
  },

  // The person's finished turn: judged, never played.
  async answer(text) {
    if (this.judging) return;
    this.judging = true;
    $('puzzle-verdict').textContent = 'judging…';
    $('puzzle-verdict').className = '';
    $('puzzle-refutation').textContent = '';
    const verdict = await command('/api/puzzle/answer', { puzzle: this.index, turn: text });
    this.judging = false;
    turn.prefix = [];
    loadChoices();
    if (!verdict) { $('puzzle-verdict').textContent = ''; return; }
    const box = $('puzzle-verdict');
    box.className = verdict.solved === true ? 'solved' : verdict.solved === false ? 'failed' : '';
    box.textContent = (verdict.solved === true ? 'Solved: ' : verdict.solved === false ? 'Not quite: ' : '') + verdict.text;
    if (verdict.refutation) $('puzzle-refutation').textContent = `Refutation: ${verdict.refutation}`;
    if (verdict.solved !== null) this.record(this.index, verdict.solved);
    $('turn-text').value = '';
    this.draw();
  },
};

$('puzzles-mode').onclick = () => puzzles.enter();
$('puzzle-previous').onclick = () => puzzles.step(-1);
$('puzzle-next').onclick = () => puzzles.step(1);
$('puzzle-kind').onchange = () => {
  const shown = puzzles.shown();
  if (shown.length && !shown.includes(puzzles.index)) puzzles.show(shown[0]);
  else puzzles.draw();
};
window.puzzles = puzzles;
