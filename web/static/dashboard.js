// The live dashboard: one server-sent "state" event per change, drawn in full.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const main = document.querySelector("main.dash");
  const isDemo = main.dataset.demo === "1";
  let state = null;
  let demoMode = "random";
  let demoModeAsked = null;  // a switch of the demo's player the server has not yet published
  window.__pitwatchRenders = [];  // {version, moves, at, stableAt, byPlayers, boardChangedAt, judgeMs, commitMs, publishedAt}: read by the end-to-end tests and the benchmark

  const ICONS = { move: "✓", takeback: "↶", unchanged: "✓", in_progress: "…", ambiguous: "?", illegal: "✗",
    unreadable: "✗", error: "✗", waiting: "…", agreement: "⚑", correction: "✓", over: "⚑", lost: "✗" };

  function playerName(side) { return state.game.names[side]; }

  function headline(v, game) {
    const mover = (side) => playerName(side);
    const moves = (v.moves || []).join(", ");
    switch (v.kind) {
      case "move": return [`${v.player ? mover(v.player) + " played" : "Played"} ${moves}`, moveDetail(v)];
      case "correction": return [v.message, ""];
      case "takeback": return ["Move taken back", v.message];
      case "unchanged": return ["The board matches the game", `${mover(game.to_move)} to move`];
      case "in_progress": return ["A move is being played…", "waiting for a still board"];
      case "ambiguous": return ["More than one move fits: which was played?", v.message];
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

  function differences(v) {
    return (v.differences || []).map((d) => `${d.pit}: should be ${d.expected}, seen ${d.seen}`).join(" · ");
  }

  function resultText(game) {
    const r = game.result;
    const score = `${r.score.south}–${r.score.north}`;
    if (r.winner === null) return [`Draw (${r.reason})`, score];
    return [`${playerName(r.winner)} wins`, `${score} · ${r.reason}`];
  }

  function renderBanner() {
    const banner = $("banner");
    const game = state.game;
    let kind = state.verdict.kind;
    let [head, detail] = headline(state.verdict, game);
    const lost = Object.entries(state.sources || {}).filter(([, s]) => s !== "ok" && /lost|failed|not sent|never still|no reading|microcontroller not found|error/i.test(s));
    const strays = Object.values(state.sources || {}).filter((s) => / on the wood by /.test(s));  // the board is a seed short: say where it is
    if (state.recording) {  // the disk full: the game stays as recorded until it can be written again
      kind = "lost";
      head = `Cannot record the game: ${state.recording}`;
      detail = "the board is judged again once it can be recorded; every move recorded before is kept";
    } else if (game.result && kind !== "illegal") {
      kind = "over";
      [head, detail] = resultText(game);
    } else if (lost.length && kind !== "illegal") {
      kind = "lost";
      head = lost.map(([name, s]) => (/camera|microcontroller/i.test(s) ? s : `${name}: ${s}`)).join(" · ");
      head = head.charAt(0).toUpperCase() + head.slice(1);
      const watching = Object.keys(state.sources || {}).length > lost.length;
      detail = watching ? "the game goes on with the other source" : "nothing watches the board until it is back";
    }
    if (strays.length && kind !== "over") detail = [detail, ...strays].filter(Boolean).join(" · ");
    banner.className = kind;
    banner.replaceChildren(
      Pitwatch.el("span", { class: "icon" }, ICONS[kind] || "•"),
      Pitwatch.el("span", { class: "headline" }, head || ""),
    );
    if (detail) banner.append(Pitwatch.el("span", { class: "detail" }, detail));
    if (state.choices && state.choices.length) {
      const box = Pitwatch.el("div", { class: "choices" });
      state.choices.forEach((choice, index) => {
        const label = choice.description || (choice.moves || []).join(" then ") || choice.kind;
        const button = Pitwatch.el("button", { class: "primary", "data-choice": index }, label);
        button.addEventListener("click", () => Pitwatch.post("/api/choose", { index }));
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
      tag.classList.toggle("moving", !game.result && game.to_move === side);
      $(`score-${side}-name`).textContent = game.names[side];
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
    if (captured.south || captured.north) lines.push(`Captured this game: ${captured.south}–${captured.north}`);
    $("score-extra").replaceChildren(...lines.map((line) => Pitwatch.el("div", {}, line)));
    renderMatchChart(state.game.match_history || [], target || 500);
  }

  // The match to its target: each player's match score after every game, against the target line.
  function renderMatchChart(history, target) {
    const chart = $("match-chart");
    chart.hidden = history.length < 2;
    if (chart.hidden) return;
    const w = 320, h = 110, n = history.length - 1;
    const top = Math.max(target, ...history.map((m) => Math.max(m.south, m.north)));
    const x = (i) => 10 + (i / n) * (w - 20);
    const y = (v) => h - 10 - (v / top) * (h - 20);
    const line = (side) => history.map((m, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(m[side]).toFixed(1)}`).join(" ");
    const dots = (side) => history.map((m, i) => `<circle cx="${x(i).toFixed(1)}" cy="${y(m[side]).toFixed(1)}" r="3" fill="${Board.PLAYER[side]}"/>`).join("");
    chart.setAttribute("viewBox", `0 0 ${w} ${h}`);
    chart.innerHTML = `<line x1="10" x2="${w - 10}" y1="${y(target)}" y2="${y(target)}" stroke="#9aa3ad" stroke-dasharray="4 4"/>
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
    for (const d of state.verdict.differences || []) expected[d.pit] = `${d.seen} → ${d.expected}`;
    Board.render($("board"), game.layout, game.position, {
      legal: game.result ? [] : game.legal,
      moverColour: game.colours[game.to_move],
      mover: game.result ? null : game.to_move,
      differing: state.differing,
      flash: state.flash,
      last: game.last,
      owners: game.position.owners,
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
    renderBoard();
    renderControls();
    document.body.dataset.version = state.version;
    window.__pitwatchRenders.push({ version: state.version, moves: state.game.moves.length, at: Date.now(), stableAt: state.stable_at, byPlayers: state.verdict.by === "players",
      boardChangedAt: state.demo ? state.demo.board_changed_at : null, judgeMs: state.judge_ms, commitMs: state.commit_ms, publishedAt: state.published_at });
    if (window.__pitwatchRenders.length > 2000) window.__pitwatchRenders.splice(0, 1000);
  }

  function connect() {
    const source = new EventSource("/api/events");
    source.addEventListener("state", (event) => {
      $("pill-link").className = "pill ok";
      const next = JSON.parse(event.data);
      if (state && next.boot !== state.boot) location.reload();  // Pitwatch restarted: fresh page, fresh token
      else if (next.game) render(next);
    });
    source.onerror = () => { $("pill-link").className = "pill bad"; };
  }

  // -- controls ------------------------------------------------------------------
  $("btn-takeback").addEventListener("click", () => Pitwatch.post("/api/takeback"));
  $("btn-next").addEventListener("click", () => Pitwatch.post("/api/next-game"));
  $("btn-draw").addEventListener("click", () => {
    if (confirm("Do both players agree a draw?")) Pitwatch.post("/api/draw");
  });
  $("btn-move").addEventListener("click", () => Pitwatch.post("/api/move", { move: $("move-text").value.trim() }).then(() => { $("move-text").value = ""; }));
  $("btn-correct").addEventListener("click", () => Pitwatch.post("/api/correct", { move: $("move-text").value.trim() }).then(() => { $("move-text").value = ""; }));
  $("board").addEventListener("click", (event) => {
    const pit = event.target.closest("g.pit.clickable");
    if (pit) Pitwatch.post("/api/demo/click", { pit: pit.dataset.label });
  });
  document.querySelectorAll('input[name="demo-player"]').forEach((radio) => radio.addEventListener("change", () => {
    demoMode = demoModeAsked = radio.value;
    Pitwatch.post("/api/demo/player", { mode: demoMode }).then(() => state && renderBoard(), () => {
      demoModeAsked = null;  // refused (the toast says why): show the player the server still has
      if (state) { renderDemoPlayer(); renderBoard(); }
    });
  }));

  // -- new game dialog -----------------------------------------------------------
  let variants = [];
  function optionField(option) {
    const id = `opt-${option.name}`;
    const label = Pitwatch.el("label", { for: id }, option.name.replaceAll("_", " "));
    let input;
    if (option.choices) {
      input = Pitwatch.el("select", { id, "data-option": option.name, "data-type": "str" });
      for (const c of option.choices) input.append(Pitwatch.el("option", { value: c }, String(c)));
      input.value = option.default;
    } else if (typeof option.default === "boolean") {
      input = Pitwatch.el("input", { id, type: "checkbox", "data-option": option.name, "data-type": "bool" });
      input.checked = option.default;
    } else if (typeof option.default === "number") {
      input = Pitwatch.el("input", { id, type: "number", "data-option": option.name, "data-type": "int", value: option.default });
      if (option.bounds) { input.min = option.bounds[0]; input.max = option.bounds[1]; }
    } else {
      input = Pitwatch.el("input", { id, "data-option": option.name, "data-type": "str", value: option.default });
    }
    return [label, input, Pitwatch.el("span", { class: "hint" }, option.description)];
  }
  function showOptions() {
    const v = variants.find((x) => x.name === $("ng-variant").value);
    $("ng-description").textContent = v ? v.description : "";
    $("ng-options").replaceChildren(...(v ? v.options.flatMap(optionField) : []));
  }
  $("btn-new").addEventListener("click", async () => {
    if (!variants.length) {
      variants = await (await fetch("/api/variants")).json();
      // a variant of another board than the one being watched cannot be chosen (pitwatch run watches one board)
      $("ng-variant").replaceChildren(...variants.map((v) => v.playable
        ? Pitwatch.el("option", { value: v.name }, v.name)
        : Pitwatch.el("option", { value: v.name, disabled: "" }, `${v.name} (a ${v.board} board)`)));
      if (state) $("ng-variant").value = state.game.variant;
    }
    if (state) { $("ng-south").value = state.game.names.south; $("ng-north").value = state.game.names.north; }
    showOptions();
    $("new-game").showModal();
  });
  $("ng-variant").addEventListener("change", showOptions);
  $("new-game-form").addEventListener("submit", (event) => {
    if (event.submitter && event.submitter.value !== "start") return;
    const options = {};
    document.querySelectorAll("#ng-options [data-option]").forEach((input) => {
      const type = input.dataset.type;
      options[input.dataset.option] = type === "bool" ? input.checked : type === "int" ? Number(input.value) : input.value;
    });
    Pitwatch.post("/api/game", { variant: $("ng-variant").value, options, south: $("ng-south").value, north: $("ng-north").value });
  });

  connect();
  // The MJPEG stream never "finishes loading": start it after the page has, so the page is not left loading.
  window.addEventListener("load", () => {
    const camera = $("camera");
    if (camera) camera.src = camera.dataset.stream;
  });
})();
