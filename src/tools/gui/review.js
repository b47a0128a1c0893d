// Review's marks and variations on the page (the server side is review.rs).
// The state's `review` carries the marked turns as the server's review
// finds them (annotate's findings: missed wins, turns that walk into a
// loss, large value drops, each with the better turn and its sentence),
// the record's handicap turns, and the main line while a variation is
// shown. page.js draws the turn list and the graph; review.draw() then adds
// the marks to both, the selected turn's better turn, the progress, and in
// a variation the list of the main line with the variation's turns under
// the turn they branch from. The server decides everything; this only draws.
'use strict';

const review = {
  // Marker colours by kind (page.css has the same for the list).
  COLOURS: { missedWin: '#ff5d8f', allowsLoss: '#ff3b30', valueDrop: '#ffa53b', swap: '#b48cff', bonus: '#5ad1ff' },
  SIGNS: { missedWin: '??', allowsLoss: '??', valueDrop: '?', swap: '⇄', bonus: '+' },

  // The review's boxes, made once under the graph: the depth choice, the
  // progress and the selected mark.
  boxes() {
    let status = document.getElementById('review-status');
    if (!status) {
      const graph = document.getElementById('graph');
      const depth = document.createElement('label');
      depth.id = 'review-depth';
      depth.textContent = 'review depth ';
      const nodes = document.createElement('select');
      nodes.id = 'review-nodes';
      nodes.title = 'how hard the engine looks at each turn of the review';
      nodes.onchange = () => command('/api/review/depth', { nodes: Number(nodes.value) });
      depth.appendChild(nodes);
      status = document.createElement('div');
      status.id = 'review-status';
      const mark = document.createElement('div');
      mark.id = 'review-mark';
      graph.after(depth, status, mark);
    }
    return { status, mark: document.getElementById('review-mark') };
  },

  // The depth choice: the server's depths, the one in use chosen.
  drawDepth(info) {
    const label = document.getElementById('review-depth');
    label.hidden = !info;
    if (!info) return;
    const nodes = document.getElementById('review-nodes');
    const offered = info.depths.join(',');
    if (nodes.dataset.offered !== offered) {
      nodes.textContent = '';
      for (const depth of info.depths) {
        const option = document.createElement('option');
        option.value = String(depth);
        option.textContent = `${depth} nodes a turn`;
        nodes.appendChild(option);
      }
      nodes.dataset.offered = offered;
    }
    nodes.value = String(info.nodes);
  },

  // The marks that belong to the game shown: in a variation, those of the
  // shared turns before its branch.
  shownMarks(list) {
    const info = state.review;
    const limit = info.variation ? info.variation.branch : Infinity;
    return list.filter((item) => item.ply < limit);
  },

  draw() {
    const { status, mark } = this.boxes();
    const info = state.review;
    status.hidden = !info;
    mark.hidden = !info;
    this.drawDepth(info);
    if (!info) return;
    if (info.variation) this.drawVariation(info.variation);
    this.drawStatus(status, info);
    const marks = this.shownMarks(info.marks);
    const events = this.shownMarks(info.events);
    this.markList(marks, events);
    this.markGraph(marks, events);
    this.drawSelected(mark, info, marks, events);
  },

  drawStatus(box, info) {
    if (info.error) { box.textContent = info.error; return; }
    const counted = `${info.marks.length} marked turn${info.marks.length === 1 ? '' : 's'}`;
    box.textContent = info.done
      ? `review done: ${counted} (${info.nodes} nodes a turn)`
      : `reviewing… ${info.analysed} of ${info.total} turns, ${counted} so far`;
    box.dataset.done = info.done;
    box.dataset.marks = info.marks.length;
  },

  // The list item of turn `ply` of the game shown (in a variation, the main
  // line's items carry their ply too).
  item(ply) {
    return document.querySelector(`#moves > li[data-ply="${ply}"]`);
  },

  markList(marks, events) {
    // page.js's list has one item per turn; a variation's list (drawn
    // here) numbers its own.
    if (!state.review.variation) {
      document.querySelectorAll('#moves > li').forEach((item, index) => { item.dataset.ply = index; });
    }
    for (const found of [...marks, ...events]) {
      const item = this.item(found.ply);
      if (!item) continue;
      item.classList.add('marked', 'mark-' + found.kind);
      const sign = document.createElement('span');
      sign.className = 'mark-sign';
      sign.textContent = ' ' + this.SIGNS[found.kind];
      sign.title = found.text;
      item.insertBefore(sign, item.childNodes[1] || null);
    }
  },

  // A dot per marked turn on the graph, where player 0's win probability
  // was before it (the mark's own value when the graph has none there).
  markGraph(marks, events) {
    const graph = document.getElementById('graph');
    const count = Math.max(1, state.evaluations.length - 1);
    const height = (found) => {
      const known = state.evaluations[found.ply];
      if (known !== null && known !== undefined) return known;
      if (found.before === undefined) return 500;
      return found.mover === 0 ? found.before : 1000 - found.before;
    };
    for (const found of [...marks, ...events]) {
      const x = ((found.ply + 0.5) / count) * 300;
      if (found.kind === 'swap' || found.kind === 'bonus') {
        element('rect', { x: x - 1.5, y: 0, width: 3, height: 80, fill: this.COLOURS[found.kind], opacity: 0.6,
          class: 'graph-mark', 'data-kind': found.kind, 'data-ply': found.ply }, graph);
        continue;
      }
      const dot = element('circle', { cx: x, cy: Math.min(76, Math.max(4, 80 - (height(found) / 1000) * 80)), r: 4, fill: this.COLOURS[found.kind],
        stroke: '#10131c', 'stroke-width': 1, class: 'graph-mark', 'data-kind': found.kind, 'data-ply': found.ply }, graph);
      element('title', {}, dot).textContent = `turn ${found.number}: ${found.text}`;
    }
  },

  // The turn just played to reach the shown board (the list's current
  // item): its mark, with the better turn and why.
  drawSelected(box, info, marks, events) {
    box.textContent = '';
    const ply = state.ply - 1;
    const found = marks.find((item) => item.ply === ply);
    const event = events.find((item) => item.ply === ply);
    box.className = found ? 'mark-' + found.kind : '';
    if (event) {
      const line = document.createElement('p');
      line.className = 'review-event';
      line.textContent = event.text;
      box.appendChild(line);
    }
    if (!found) return;
    const title = document.createElement('p');
    title.className = 'review-title';
    // A missed win names the winning turn, which the better line names again.
    const words = found.text.endsWith(': ' + found.better) ? found.text.slice(0, -found.better.length - 2) : found.text;
    title.textContent = `${this.SIGNS[found.kind]} turn ${found.number}, ${state.playerNames[found.mover]}: ${words}`;
    const better = document.createElement('p');
    better.className = 'review-better';
    // As annotate writes it: the sentence alone when it names the turn.
    if (found.explanation.includes(found.better)) {
      better.textContent = 'better: ' + found.explanation;
    } else {
      better.textContent = 'better: ' + found.better;
      const why = document.createElement('span');
      why.className = 'explanation review-why';
      why.textContent = found.explanation;
      better.appendChild(why);
    }
    const chances = document.createElement('p');
    chances.className = 'explanation';
    chances.textContent = `${state.playerNames[found.mover]}'s win probability ${(found.before / 10).toFixed(1)}% before` +
      (found.after === null ? '' : `, ${(found.after / 10).toFixed(1)}% after`);
    const back = document.createElement('button');
    back.id = 'review-before';
    back.textContent = 'Show the position before it';
    back.onclick = () => goto(found.ply);
    box.append(title, better, chances, back);
  },

  // In a variation: the main line's turns, with the variation's listed
  // apart under the turn it branches from, and a button that drops it.
  drawVariation(variation) {
    const list = document.getElementById('moves');
    list.textContent = '';
    const branchItem = document.createElement('li');
    branchItem.id = 'variation';
    branchItem.className = 'variation';
    const label = document.createElement('span');
    label.textContent = 'variation ';
    const drop = document.createElement('button');
    drop.id = 'drop-variation';
    drop.textContent = 'Drop variation';
    drop.onclick = (event) => { event.stopPropagation(); command('/api/review/drop', {}); };
    const turns = document.createElement('ol');
    turns.id = 'variation-turns';
    turns.start = variation.branch + 1;
    state.turns.slice(variation.branch).forEach((played, offset) => {
      const ply = variation.branch + offset;
      const item = document.createElement('li');
      item.textContent = `${state.playerNames[played.mover]}: ${played.sdg}`;
      item.className = 'p' + played.mover + (ply + 1 === state.ply ? ' current' : '');
      item.onclick = () => goto(ply + 1);
      turns.appendChild(item);
    });
    branchItem.append(label, drop, turns);
    variation.main.forEach((played, ply) => {
      if (ply === variation.branch) list.appendChild(branchItem);
      const item = document.createElement('li');
      item.dataset.ply = ply;
      item.textContent = `${state.playerNames[played.mover]}: ${played.sdg}`;
      const shared = ply < variation.branch;
      item.className = 'p' + played.mover + (shared ? '' : ' main-after') + (shared && ply + 1 === state.ply ? ' current' : '');
      // A main-line turn after the branch is shown by dropping the variation.
      item.onclick = shared ? () => goto(ply + 1) : () => command('/api/review/drop', { ply: ply + 1 });
      list.appendChild(item);
    });
    if (variation.branch >= variation.main.length) list.appendChild(branchItem);
    // The variation's current turn in view, once per step (the list only).
    if (this.scrolledPly !== state.ply) {
      this.scrolledPly = state.ply;
      const current = turns.querySelector('.current') || branchItem;
      // #moves is the offset parent of the nested items too (position: relative).
      list.scrollTop = current.offsetTop - list.clientHeight / 2;
    }
  },
};

window.review = review;
