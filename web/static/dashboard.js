// The live dashboard: one server-sent "state" event per change, drawn in full.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const main = document.querySelector("main.dash");
  const isDemo = main.dataset.demo === "1";
  let state = null;
  let demoMode = "random";
  let demoModeAsked = null;  // a switch of the demo's player the server has not yet published
  let reachable = false;  // the live connection to Pitwatch: while it is lost, nothing is refereed
  let hollowsPressed = null;  // {choice, hollows}: the hollows pressed for the round's set-up shown (Nam Nam)
  window.__pitwatchRenders = [];  // {version, moves, at, stableAt, byPlayers, boardChangedAt, judgeMs, commitMs, publishedAt}: read by the end-to-end tests and the benchmark

  const ICONS = { move: "✓", round_set_up: "✓", takeback: "↶", unchanged: "✓", in_progress: "…", ambiguous: "?", illegal: "✗",
    unreadable: "✗", error: "✗", waiting: "…", agreement: "⚑", correction: "✓", over: "⚑", lost: "✗" };

  function playerName(side) { return state.game.names[side]; }
  function opponent(side) { return side === "south" ? "north" : "south"; }
  function capitalised(text) { return text.charAt(0).toUpperCase() + text.slice(1); }
  // Words made a sentence: capitalised, unless they start with a player's name as written ("van Dijk played C").
  function sentence(words) {
    return Object.values(state.game.names).some((name) => words.startsWith(`${name} `)) ? words : capitalised(words);
  }

  // -- moves and boards in plain words ------------------------------------------------
  const CHIP_COLOURS = { w: "white", y: "yellow" };
  const chipsWords = (letters) => [...letters].map((c) => CHIP_COLOURS[c]).join(", ");  // "wyy": white, yellow, yellow
  const OUTBOX_OWNERS = { S: "south", N: "north" };  // Pass It On's outboxes

  // One move, as the players would say it: "played C", "passed and took a yellow chip from Ann's outbox (S)".
  function moveWords(text) {
    const pass = /^pass(?::([SN]):([wy]))?$/.exec(text);
    if (pass && !pass[1]) return "passed";
    if (pass) return `passed and took a ${CHIP_COLOURS[pass[2]]} chip from ${playerName(OUTBOX_OWNERS[pass[1]])}'s outbox (${pass[1]})`;
    const sown = /^([A-Za-z]+):([wy]+)$/.exec(text);  // a Pass It On section and the colours dropped, in order
    if (sown) return `played ${sown[1]} (${chipsWords(sown[2])})`;
    return `played ${text}`;
  }

  // Each move with its mover: "Ann played B, then Bob played e" (a verdict may hold a move of each player).
  function movesWords(v) {
    const players = v.players || (v.moves || []).map(() => v.player);
    const said = (v.moves || []).map((text, i) => (players[i] ? `${playerName(players[i])} ` : "") + moveWords(text));
    const left = (v.best || v).left_for_owner || [];  // Nam Nam: a four its owner keeps on the board
    if (left.length) said.push(`the four in ${left.join(" and ")} left on the board`);
    return said.join(", then ");
  }

  // An ambiguous verdict's possible story, for its button.
  function choiceWords(choice) {
    if (choice.kind === "move") return sentence(movesWords(choice));
    if (choice.kind === "unchanged") return "Nothing was played";
    if (choice.kind === "takeback") return choice.undo > 1 ? `The last ${choice.undo} moves were taken back` : "The last move was taken back";
    return choice.description || choice.kind;
  }

  // Pass It On is played with chips of two colours, every other variant with seeds.
  function pieces() { return state.game.position.white ? "chips" : "seeds"; }

  // A pit that differs from what the game says it holds: its white and yellow chips where chips are coloured.
  function differenceWords(d) {
    if (d.expected_white === undefined) return `${d.pit}: should be ${d.expected} ${pieces()}, seen ${d.seen}`;
    const colours = (count, white) => `${white} white and ${count - white} yellow`;
    return `${d.pit}: should be ${colours(d.expected, d.expected_white)} chips, seen ${colours(d.seen, d.seen_white)}`;
  }

  function differences(v) {
    return (v.differences || []).map(differenceWords).join(" · ");
  }

  // The tab drawn in a differing pit: what it shows -> what it should hold.
  function differenceTab(d) {
    if (d.expected_white !== undefined && d.expected === d.seen) return `${d.seen_white} → ${d.expected_white} white`;
    return `${d.seen} → ${d.expected}`;
  }

  // The board left from the last game, not yet laid out as this one's start: the players set it up.
  function awaitsSetUp(v) {
    return v.kind === "illegal" && !!v.mistake && v.mistake.code === "not_set_up";
  }

  function setUpWords(v) {
    return (v.differences || []).map((d) => `${d.pit}: ${d.expected} ${pieces()} (now ${d.seen})`).join(" · ");
  }

  function headline(v, game) {
    switch (v.kind) {
      case "move": return [sentence(movesWords(v)), moveDetail(v)];
      case "correction": return [v.message, ""];
      case "round_set_up": return [v.message, "the round starts"];
      case "takeback": return ["Move taken back", v.message];
      case "unchanged": return ["The board matches the game", `${playerName(game.to_move)} to move`];
      case "in_progress": return ["A move is being played…", "waiting for a still board"];
      case "ambiguous":  // a takeback of many moves is asked, with the takeback its one choice
        if (v.confirm === "takeback") return [`The board is back where it was ${v.undo} moves ago`, "take them back (below), or start a new game if the board was laid out for one"];
        return ["More than one move fits: which was played?", v.message];
      case "illegal": return [`Illegal: ${v.mistake_words || v.message || "the board does not match any legal move"}`, differences(v)];
      case "unreadable": return ["The board cannot be read", v.message];
      case "agreement": return ["Draw agreed", ""];
      case "error": return ["The referee could not judge this board", v.message];
      default: return ["Waiting for a still board", v.message];
    }
  }

  // What the move did, in a few words: captures, an extra turn, how sure the referee is.
  function moveDetail(v) {
    const parts = [];
    const events = v.events || [];
    const captured = events.filter((e) => e.type === "capture").reduce((n, e) => n + e.seeds, 0);
    if (captured) parts.push(`captured ${captured} seed${captured > 1 ? "s" : ""}`);
    if (events.some((e) => e.type === "extra_turn")) parts.push("plays again");
    if (v.by === "players") parts.push("entered by the players");
    else if (typeof v.confidence === "number") parts.push(`referee ${Math.round(v.confidence * 1000) / 10}% sure`);
    return parts.join(" · ");
  }

  function resultText(game) {
    const r = game.result;
    const score = Pitwatch.score(r);
    if (r.winner === null) return [`Draw (${r.reason})`, score];
    return [`${playerName(r.winner)} wins`, `${score} · ${r.reason}`];
  }

  // -- the banner: the most pressing thing first ----------------------------------------
  const SOURCE_TROUBLE = /lost|failed|not sent|never still|no reading|microcontroller not found|error/i;

  // The sources that cannot read the board now, in words: "Camera: board never still (settling)".
  function sourceTrouble() {
    const troubled = Object.entries(state.sources || {}).filter(([, s]) => s !== "ok" && SOURCE_TROUBLE.test(s));
    const words = troubled.map(([name, s]) => capitalised(/camera|microcontroller/i.test(s) ? s : `${name}: ${s}`)).join(" · ");
    const watching = Object.keys(state.sources || {}).length > troubled.length;
    return { troubled: troubled.length > 0, words, watching };
  }

  // [kind, headline, detail]: the verdict leads, unless nothing can be refereed or the game is over.
  function bannerSays() {
    if (!reachable) return ["lost", "Pitwatch cannot be reached", "nothing is being refereed until it is back"];
    if (state.recording) {  // the disk full: the game stays as recorded until it can be written again
      return ["lost", `Cannot record the game: ${state.recording}`,
        "the board is judged again once it can be recorded; every move recorded before is kept"];
    }
    const v = state.verdict;
    if (state.game.result && v.kind !== "illegal") return ["over", ...resultText(state.game)];
    const sources = sourceTrouble();
    if (sources.troubled && !sources.watching && v.kind !== "illegal" && v.kind !== "ambiguous") {
      return ["lost", sources.words, "nothing watches the board until it is back"];
    }
    if (awaitsSetUp(v)) return ["waiting", "Lay out the start position", setUpWords(v)];
    return [v.kind, ...headline(v, state.game)];
  }

  // Below the headline: a source that cannot read the board, when it does not lead; a seed on the wood.
  function bannerRemarks(kind) {
    if (!reachable || kind === "over") return [];
    const remarks = [];
    const sources = sourceTrouble();
    if (sources.troubled && kind !== "lost") {
      remarks.push(`${sources.words}: ${sources.watching ? "the game goes on with the other source" : "nothing watches the board until it is back"}`);
    }
    remarks.push(...Object.values(state.sources || {}).filter((s) => / on the wood by /.test(s)));  // the board is a seed short: say where it is
    if (state.verdict.button) remarks.push(`Board button: ${state.verdict.button}`);  // a press that did nothing, and why
    const game = state.game;  // Pass It On: a player who cannot sow passes, and the outboxes to take a chip from light
    if (!game.result && game.legal_moves.length && game.legal_moves.every((text) => text.startsWith("pass:"))) {
      remarks.push(`${playerName(game.to_move)} cannot sow: pass, taking a chip from a lit outbox`);
    }
    return remarks;
  }

  let bannerSaid = null;  // what the banner says now: redrawn only when that changes

  function renderBanner() {
    const banner = $("banner");
    const [kind, head, detail] = bannerSays();
    // a live region (role status): every redraw would be announced again, with each sensor's reading
    const said = JSON.stringify([kind, head, detail, bannerRemarks(kind), reachable && state.choices]);
    if (said === bannerSaid) return;
    bannerSaid = said;
    banner.className = kind;
    banner.replaceChildren(
      Pitwatch.el("span", { class: "icon" }, ICONS[kind] || "•"),
      Pitwatch.el("span", { class: "headline" }, head || ""),
    );
    if (detail) banner.append(Pitwatch.el("span", { class: "detail" }, detail));
    for (const remark of bannerRemarks(kind)) banner.append(Pitwatch.el("span", { class: "detail remark" }, remark));
    if (reachable && state.choices && state.choices.length) {
      const box = Pitwatch.el("div", { class: "choices" });
      state.choices.forEach((choice, index) => {
        const button = Pitwatch.el("button", { class: "primary", "data-choice": index }, choiceWords(choice));
        // with the moves shown: a verdict replaced meanwhile (another tab, a new board) is refused, not chosen for
        button.addEventListener("click", () => Pitwatch.control("/api/choose", { index, moves: choice.moves || [] }));
        box.append(button);
      });
      banner.append(box);
    }
  }

  function renderPlayers() {
    const game = state.game;
    for (const side of ["south", "north"]) {
      const tag = $(`tag-${side}`);
      tag.querySelector(".name").textContent = game.names[side];
      tag.querySelector(".name").title = game.names[side];  // a long name is cut short on the page
      tag.classList.toggle("moving", !game.result && game.to_move === side);
      $(`score-${side}-name`).textContent = game.names[side];
      $(`score-${side}-name`).title = game.names[side];
      $(`score-${side}`).textContent = game.score[side];
    }
    $("variant-name").textContent = game.description;
    $("score-label").textContent = `· ${game.score_label}`;
    const last = game.moves[game.moves.length - 1];
    $("last-move").textContent = last ? `last move: ${last.text}` : "no move yet";
  }

  function renderExtra() {
    const pos = state.game.position;
    const lines = [];
    if (pos.round !== undefined) {
      lines.push(`Round ${pos.round}` + (pos.round_starter ? `, started by ${playerName(pos.round_starter)}` : ""));
      (pos.rounds || []).forEach((r, i) => lines.push(`Round ${i + 1}: ${r.south}–${r.north}`));
      const owned = { south: 0, north: 0 };
      for (const owner of Object.values(pos.owners || {})) owned[owner] += 1;
      lines.push(`Hollows owned: ${playerName("south")} ${owned.south}, ${playerName("north")} ${owned.north}`);
    }
    if (pos.penalties) lines.push(`Penalty points: ${playerName("south")} ${pos.penalties.south}, ${playerName("north")} ${pos.penalties.north}`);
    const target = state.game.options.match_target;
    if (pos.match) {
      lines.push(`Game ${pos.game} of the match to ${target}: ${playerName("south")} ${pos.match.south}, ${playerName("north")} ${pos.match.north}`);
    }
    const captured = pos.captured || {};
    if (captured.south || captured.north) {
      lines.push(`Captured this game: ${playerName("south")} ${captured.south}, ${playerName("north")} ${captured.north}`);
    }
    $("score-extra").replaceChildren(...lines.map((line) => Pitwatch.el("div", {}, line)));
    renderMatchChart(state.game.match_history || [], target || 500);
  }

  // The match to its target: each player's match score after every game, against the target line;
  // a legend names each line, and the chart's name says the scores in words for a screen reader.
  const LEGEND_HEIGHT = 30;  // the match chart's legend: a row for each player
  function renderMatchChart(history, target) {
    const chart = $("match-chart");
    chart.toggleAttribute("hidden", history.length < 2);  // an SVG element has no hidden property to set
    if (history.length < 2) return;
    const w = 320, h = 110, n = history.length - 1;
    const top = Math.max(target, ...history.map((m) => Math.max(m.south, m.north)));
    const x = (i) => 10 + (i / n) * (w - 20);
    const y = (v) => h - 10 - (v / top) * (h - 20);
    const line = (side) => history.map((m, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(m[side]).toFixed(1)}`).join(" ");
    const dots = (side) => history.map((m, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(m[side]).toFixed(1)}" r="3" fill="${Board.PLAYER[side]}"/>`).join("");
    const legend = ["south", "north"].map((side, i) => `<g class="legend" data-side="${side}">
      <line x1="10" x2="26" y1="${h + 8 + 13 * i}" y2="${h + 8 + 13 * i}" stroke="${Board.PLAYER[side]}" stroke-width="2.5"/>
      <text x="31" y="${h + 12 + 13 * i}" font-size="10" fill="#cfd6dd">${Board.esc(playerName(side))}</text></g>`).join("");
    const said = (side) => `${playerName(side)} ${history.map((m) => m[side]).join(", ")}`;
    chart.setAttribute("role", "img");
    chart.setAttribute("aria-label", `the match to ${target}, game by game: ${said("south")}; ${said("north")}`);
    chart.setAttribute("viewBox", `0 0 ${w} ${h + LEGEND_HEIGHT}`);  // the legend under the lines, clear of them
    chart.innerHTML = `${legend}<line x1="10" x2="${w - 10}" y1="${y(target)}" y2="${y(target)}" stroke="#9aa3ad" stroke-dasharray="4 4"/>
      <text x="${w - 12}" y="${y(target) - 4}" text-anchor="end" font-size="10" fill="#9aa3ad">${target}</text>
      <path d="${line("south")}" stroke="${Board.PLAYER.south}" stroke-width="2.5" fill="none"/>
      <path d="${line("north")}" stroke="${Board.PLAYER.north}" stroke-width="2.5" fill="none"/>${dots("south")}${dots("north")}`;
  }

  function renderMoves() {
    const list = $("moves");
    const items = state.game.moves.map((m) => {
      const li = Pitwatch.el("li", { class: m.player, "data-ply": m.ply });
      li.append(Pitwatch.el("span", { class: "n" }, `${m.ply + 1}.`), document.createTextNode(m.text));
      return li;
    });
    list.replaceChildren(...items);
    list.scrollTop = list.scrollHeight;
  }

  function renderSensors() {
    const box = $("sensors");
    const entries = Object.entries(state.sensors || {});
    box.replaceChildren(...entries.map(([label, value]) => {
      const cell = Pitwatch.el("div", { "data-pit": label });
      cell.append(Pitwatch.el("b", {}, label), document.createTextNode(typeof value === "number" ? value.toFixed(0) : String(value)));
      return cell;
    }));
    for (const [name, id] of [["camera", "pill-camera"], ["sensors", "pill-sensors"]]) {
      const pill = $(id);
      if (!pill) continue;
      const status = (state.sources || {})[name];
      const working = status === "ok" || (status || "").startsWith("ok (");  // "ok (marker near-left not seen)": read all the same
      pill.className = "pill " + (working ? "ok" : status ? "bad" : "");
      pill.title = status || "not used";
      pill.setAttribute("aria-label", `${name}: ${pill.title}`);  // the dot's colour, in words
    }
  }

  // Where the camera stands, judged from its newest still board: what the benchmark read from
  // there, and what to do when it is worse than from its own cameras.
  function renderPlacement() {
    const list = $("placement");
    if (!list) return;
    const judged = state.camera_placement || [];
    list.hidden = !judged.length;
    list.replaceChildren(...judged.map((each) => {
      const item = Pitwatch.el("li", { class: each.ok ? "ok" : "warn", "data-check": each.name });
      item.append(Pitwatch.el("b", {}, each.name.charAt(0).toUpperCase() + each.name.slice(1)), document.createTextNode(`: ${each.said}`));
      return item;
    }));
  }

  function renderBoard() {
    const game = state.game;
    const expected = {};
    for (const d of state.verdict.differences || []) expected[d.pit] = differenceTab(d);
    Board.render($("board"), game.layout, game.position, {
      legal: game.result ? [] : game.legal,
      moverColour: Board.PLAYER[game.to_move],
      mover: game.result ? null : game.to_move,
      differing: state.differing,
      flash: state.flash,
      last: game.last,
      owners: game.position.owners,
      names: game.names,
      expected,
      clickable: isDemo && demoMode === "clicks",
    });
  }

  // The demo's player as the server says (it may have been started with --player clicks, or
  // switched in another tab); a switch made here is kept until the server publishes it, or fails.
  function renderDemoPlayer() {
    if (!state.demo) return;
    if (demoModeAsked !== null && state.demo.player !== demoModeAsked) return;
    demoModeAsked = null;
    demoMode = state.demo.player;
    const radio = document.querySelector(`input[name="demo-player"][value="${demoMode}"]`);
    if (radio) radio.checked = true;
  }

  function renderControls() {
    const game = state.game;
    $("btn-takeback").disabled = !game.moves.length;
    $("btn-correct").disabled = !game.moves.length;
    $("btn-draw").hidden = !game.draw_by_agreement;
    $("btn-draw").disabled = !!game.result;
    $("btn-next").hidden = !game.next_game;
    renderRoundChoice();
  }

  // Nam Nam, a round after a decided one: the leader says which of the opponent's hollows he takes
  // (seed counts cannot show whose a hollow is). The hollows pressed stay pressed across redraws.
  function renderRoundChoice() {
    const choice = state.game.round_choice;
    $("round-choice").hidden = !choice;
    if (!choice) { hollowsPressed = null; return; }
    const key = JSON.stringify(choice);
    if (!hollowsPressed || hollowsPressed.choice !== key) hollowsPressed = { choice: key, hollows: new Set(choice.chosen) };
    const pressed = hollowsPressed.hollows;
    $("round-choice-prompt").textContent =
      `${playerName(choice.leader)} led the round: choose ${choice.count} of ${playerName(opponent(choice.leader))}'s hollows`;
    $("round-choice-hollows").replaceChildren(...choice.hollows.map((label) => {
      const button = Pitwatch.el("button", { class: "toggle", "data-hollow": label, "aria-pressed": String(pressed.has(label)) }, label);
      button.addEventListener("click", () => {
        if (!pressed.delete(label)) pressed.add(label);
        renderRoundChoice();
      });
      return button;
    }));
    $("btn-hollows").disabled = pressed.size !== choice.count;
  }

  // The position a demo chooser offers moves for: a move, a takeback or a new game makes its moves another position's.
  function positionKey() { return JSON.stringify([state.game.id, state.game.moves.map((m) => m.text)]); }

  function renderDemoChoice() {
    const choice = $("demo-choice");
    if (choice && !choice.hidden && choice.dataset.position !== positionKey()) choice.hidden = true;
  }

  function render(next) {
    state = next;
    renderBanner();
    renderPlayers();
    renderExtra();
    renderMoves();
    renderSensors();
    renderPlacement();
    renderDemoPlayer();
    renderDemoChoice();
    renderBoard();
    renderControls();
    document.body.dataset.version = state.version;
    window.__pitwatchRenders.push({ version: state.version, moves: state.game.moves.length, at: Date.now(), stableAt: state.stable_at, byPlayers: state.verdict.by === "players",
      boardChangedAt: state.demo ? state.demo.board_changed_at : null, judgeMs: state.judge_ms, commitMs: state.commit_ms, publishedAt: state.published_at });
    if (window.__pitwatchRenders.length > 2000) window.__pitwatchRenders.splice(0, 1000);
  }

  function showLink(ok) {
    reachable = ok;
    $("pill-link").className = `pill ${ok ? "ok" : "bad"}`;
    $("pill-link").setAttribute("aria-label", `live: ${ok ? "connected" : "lost"}`);
  }

  // A Pitwatch that hangs keeps the connection open, so the browser sees no error: the server sends an
  // "alive" event every 15 s, and 40 s without any event is a lost link. Only once an "alive" came, so
  // that a server sending none (keepalive as a comment) is not taken for hanging in a quiet game.
  const SILENCE_MS = 40000;
  let serverSaysAlive = false;

  let hangUp = () => {};  // closes the live connection of the newest connect()

  // The browser reconnects by itself after an error; the first state then says all is well again.
  function connect() {
    const source = new EventSource("/api/events");
    let silence = null;
    hangUp = () => { clearTimeout(silence); source.close(); };
    function heard() {
      clearTimeout(silence);
      if (!serverSaysAlive) return;
      silence = setTimeout(() => {
        hangUp();
        showLink(false);
        renderBanner();
        connect();  // a fresh connection: its first state says Pitwatch is back
      }, SILENCE_MS);
    }
    source.addEventListener("open", heard);
    source.addEventListener("alive", () => { serverSaysAlive = true; heard(); });
    source.addEventListener("state", (event) => {
      heard();
      showLink(true);
      const next = JSON.parse(event.data);
      if (state && next.boot !== state.boot) location.reload();  // Pitwatch restarted: fresh page, fresh token
      else if (next.game) render(next);
    });
    source.onerror = () => {
      showLink(false);
      renderBanner();
    };
  }

  // -- controls ------------------------------------------------------------------
  // (A refused control is told in the toast: Pitwatch.control.)
  // the moves the players see: refused if one was played or taken back since (two tabs pressing at once)
  $("btn-takeback").addEventListener("click", () => Pitwatch.control("/api/takeback", { moves_shown: state.game.moves.length }));
  $("btn-next").addEventListener("click", () => Pitwatch.control("/api/next-game"));
  $("btn-draw").addEventListener("click", () => {
    if (confirm("Do both players agree a draw?")) Pitwatch.control("/api/draw");
  });
  function sendTypedMove(url, extra = {}) {
    Pitwatch.control(url, { move: $("move-text").value.trim(), ...extra }).then((done) => { if (done) $("move-text").value = ""; });
  }
  $("btn-move").addEventListener("click", () => sendTypedMove("/api/move"));
  $("move-text").addEventListener("keydown", (event) => {  // Enter plays the move typed, as the button does
    if (event.key === "Enter") sendTypedMove("/api/move");
  });
  $("btn-correct").addEventListener("click", () => {  // the last move the players see: refused if another came since
    const moves = state.game.moves;
    sendTypedMove("/api/correct", moves.length ? { replaces: moves[moves.length - 1].text } : {});
  });
  $("btn-hollows").addEventListener("click", () => {
    const choice = state.game.round_choice;
    Pitwatch.control("/api/hollows", { hollows: choice.hollows.filter((label) => hollowsPressed.hollows.has(label)) });
  });
  // The pit a move is made from: its text up to a direction (C>, C<) or the chips' order (c:wyy); for a
  // Pass It On pass, the outbox whose chip is taken (pass:S:w), lit as the pits are.
  function pitOf(text) {
    const pass = /^pass:([^:]+):[wy]$/.exec(text);
    return pass ? pass[1] : text.replace(/[<>]$|:[wy]+$/, "");
  }

  // How one of a pit's several moves differs from the others: its direction, or its chips' order.
  function howWords(text) {
    const pass = /^pass:[^:]+:([wy])$/.exec(text);
    if (pass) return `pass, taking a ${CHIP_COLOURS[pass[1]]} chip`;
    if (text.endsWith(">")) return `${text}: anticlockwise`;
    if (text.endsWith("<")) return `${text}: clockwise`;
    const sown = /:([wy]+)$/.exec(text);
    return sown ? chipsWords(sown[1]) : text;
  }

  // A click on the demo's board: the pit's move, or, where it has several, a button for each.
  $("board").addEventListener("click", (event) => {
    const pit = event.target.closest("g.pit.clickable");
    if (!pit) return;
    const label = pit.dataset.label;
    const moves = state.game.legal_moves.filter((text) => pitOf(text) === label);
    const choice = $("demo-choice");
    if (moves.length < 2) {
      choice.hidden = true;
      Pitwatch.control("/api/demo/click", { pit: label });
      return;
    }
    choice.replaceChildren(Pitwatch.el("span", { class: "muted" }, `${label}:`), ...moves.map((text) => {
      const button = Pitwatch.el("button", { "data-move": text }, howWords(text));
      button.addEventListener("click", () => {
        choice.hidden = true;
        Pitwatch.control("/api/demo/click", { pit: label, move: text });
      });
      return button;
    }));
    choice.dataset.position = positionKey();
    choice.hidden = false;
  });
  window.addEventListener("resize", () => { if (state) renderBoard(); });  // the board's counts are sized for the screen
  document.querySelectorAll('input[name="demo-player"]').forEach((radio) => radio.addEventListener("change", () => {
    demoMode = demoModeAsked = radio.value;
    Pitwatch.post("/api/demo/player", { mode: demoMode }).then(() => state && renderBoard(), () => {
      demoModeAsked = null;  // refused (the toast says why): show the player the server still has
      if (state) { renderDemoPlayer(); renderBoard(); }
    });
  }));

  // -- new game dialog -----------------------------------------------------------
  let variants = [];
  function optionField(option, value) {
    const id = `opt-${option.name}`;
    const label = Pitwatch.el("label", { for: id }, option.name.replaceAll("_", " "));
    let input;
    if (option.choices) {
      input = Pitwatch.el("select", { id, "data-option": option.name, "data-type": "str" });
      for (const c of option.choices) input.append(Pitwatch.el("option", { value: c }, String(c)));
      input.value = value;
    } else if (typeof option.default === "boolean") {
      input = Pitwatch.el("input", { id, type: "checkbox", "data-option": option.name, "data-type": "bool" });
      input.checked = value;
    } else if (typeof option.default === "number") {
      input = Pitwatch.el("input", { id, type: "number", "data-option": option.name, "data-type": "int", value });
      if (option.bounds) { input.min = option.bounds[0]; input.max = option.bounds[1]; }
    } else {
      input = Pitwatch.el("input", { id, "data-option": option.name, "data-type": "str", value });
    }
    return [label, input, Pitwatch.el("span", { class: "hint" }, option.description)];
  }
  // The chosen variant's options, filled in as the current game plays them when it is that variant.
  function showOptions() {
    const v = variants.find((x) => x.name === $("ng-variant").value);
    const playing = state && v && state.game.variant === v.name ? state.game.options : {};
    $("ng-description").textContent = v ? v.description : "";
    $("ng-options").replaceChildren(...(v ? v.options.flatMap((o) => optionField(o, o.name in playing ? playing[o.name] : o.default)) : []));
  }
  async function loadVariants() {
    const response = await fetch("/api/variants");
    variants = await response.json();
    // a variant of another board than the one being watched cannot be chosen (pitwatch run watches one board)
    $("ng-variant").replaceChildren(...variants.map((v) => v.playable
      ? Pitwatch.el("option", { value: v.name }, v.name)
      : Pitwatch.el("option", { value: v.name, disabled: "" }, `${v.name} (a ${v.board} board)`)));
  }
  // The dialog opens on the game being played: its variant, options and players.
  $("btn-new").addEventListener("click", async () => {
    if (!variants.length) {
      try {
        await loadVariants();
      } catch (error) {
        Pitwatch.toast("Pitwatch cannot be reached: try again");
        return;
      }
    }
    if (state) {
      $("ng-variant").value = state.game.variant;
      $("ng-south").value = state.game.names.south;
      $("ng-north").value = state.game.names.north;
    }
    showOptions();
    $("ng-refused").textContent = "";
    $("new-game").showModal();
  });
  $("ng-variant").addEventListener("change", showOptions);
  // The options as typed; an empty number is left out, for the variant's own default.
  function typedOptions() {
    const options = {};
    document.querySelectorAll("#ng-options [data-option]").forEach((input) => {
      const type = input.dataset.type;
      if (type === "int" && input.value.trim() === "") return;
      options[input.dataset.option] = type === "bool" ? input.checked : type === "int" ? Number(input.value) : input.value;
    });
    return options;
  }
  // Cancel is no submit button, so that Enter in a field starts the game (the form's first submit button)
  $("ng-cancel").addEventListener("click", () => $("new-game").close());
  let starting = false;  // a new game asked for, not yet answered: Start pressed again would start a second one
  $("new-game-form").addEventListener("submit", (event) => {
    event.preventDefault();  // closed once the game is started; refused, it stays open with the reason
    if (starting) return;
    starting = true;
    $("ng-start").disabled = true;
    const asked = { variant: $("ng-variant").value, options: typedOptions(), south: $("ng-south").value, north: $("ng-north").value };
    Pitwatch.post("/api/game", asked).then(
      () => $("new-game").close(),
      (error) => { $("ng-refused").textContent = error.message || "the game was not started"; },
    ).finally(() => {
      starting = false;
      $("ng-start").disabled = false;
    });
  });

  connect();
  // The MJPEG stream never "finishes loading": start it after the page has, so the page is not left loading.
  window.addEventListener("load", () => {
    const camera = $("camera");
    if (camera && !document.hidden) camera.src = camera.dataset.stream;
  });
  // A hidden tab gives back its two lasting connections, the event stream and the camera's: a browser
  // opens at most 6 to one server, and three tabs with a camera left none for another tab's page or
  // control (a browser audit, 2026-12-07). Shown again, it connects again; the first state brings it up to date.
  document.addEventListener("visibilitychange", () => {
    const camera = $("camera");
    if (document.hidden) {
      hangUp();
      if (camera) camera.removeAttribute("src");
      return;
    }
    connect();
    if (camera && document.readyState === "complete") camera.src = camera.dataset.stream;
  });
})();
