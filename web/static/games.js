// Recorded games: the list, and the step-by-step replay of one game.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  function resultText(record) {
    const r = record.result;
    if (!r) return record.status === "active" ? "in play" : record.status;
    const score = Pitwatch.score(r);
    return r.winner === null ? `draw ${score}` : `${r.winner === "south" ? record.south : record.north} won ${score}`;
  }

  // A log entry in words: what the referee said of a board, or what the players did.
  function logWords(entry) {
    const kinds = { illegal: "Illegal", ambiguous: "Unsure", error: "Referee failed" };
    return (kinds[entry.kind] ? `${kinds[entry.kind]}: ` : "") + entry.words;
  }

  const LOST = "Pitwatch cannot be reached: try again";  // the dashboard's words for a lost server

  // The JSON answer to a request, or null once `note` tells why there is none: Pitwatch stopped, or refused.
  async function answer(url, note) {
    let response, data;
    try {
      response = await fetch(url);
      data = await response.json();
    } catch (error) {  // stopped or restarting (or stopped while answering): say so rather than fail unseen
      note.textContent = LOST;
      return null;
    }
    if (!response.ok) { note.textContent = data.error; return null; }
    return data;
  }

  // When a game started. An imported game's start is its record's Date, a day with no time of day
  // (stored as noon UTC: pitwatch.records): the day alone is shown, not a made-up noon.
  function startedWords(g) {
    if (g.started_at === null) return "—";  // a damaged row
    const when = new Date(g.started_at * 1000);
    return g.day_only ? when.toLocaleDateString(undefined, { timeZone: "UTC" }) : when.toLocaleString();
  }

  const PAGE = 50;  // games a page of the list: a season of club evenings is hundreds

  async function list(offset = 0, below = Infinity) {
    const games = await answer(`/api/games?limit=${PAGE}&offset=${offset}`, $("games-note"));
    if (!games) return;  // the games shown stay, and Older games can be pressed again
    // a game started since the last page moves the older ones down one: skip those already listed
    const rows = games.filter((g) => g.id < below).map((g) => {
      const row = Pitwatch.el("tr", { "data-game": g.id });
      const started = startedWords(g);
      // the players' names (up to 40 letters, maybe without a space) wrap within their cells: see pitwatch.css
      const cells = [[g.id], [started], [g.variant], [g.south, "name"], [g.north, "name"], [g.moves]];
      for (const [value, kind] of cells) row.append(Pitwatch.el("td", kind ? { class: kind } : {}, String(value)));
      // a row changed outside Pitwatch says what no longer reads, rather than an empty game's result
      row.append(g.damaged ? Pitwatch.el("td", { class: "result status-damaged" }, g.damaged)
        : Pitwatch.el("td", { class: `result status-${g.status}` }, resultText(g)));
      const actions = Pitwatch.el("td");
      // each link named with its game: a screen reader's list of links is otherwise "replay, text, JSON" again and again
      actions.append(Pitwatch.el("a", { href: `/games/${g.id}`, "aria-label": `replay game ${g.id}` }, "replay"),
        document.createTextNode(" · "),
        Pitwatch.el("a", { href: `/api/games/${g.id}/export?format=text`, "aria-label": `game ${g.id} as text` }, "text"),
        document.createTextNode(" · "),
        Pitwatch.el("a", { href: `/api/games/${g.id}/export?format=json`, "aria-label": `game ${g.id} as JSON` }, "JSON"));
      row.append(actions);
      return row;
    });
    if (offset === 0) $("games").replaceChildren(...rows);
    else $("games").append(...rows);
    const shown = offset + games.length;
    $("games-note").textContent = shown ? "" : "No recorded games yet.";
    const older = $("older");
    older.hidden = games.length < PAGE;
    older.onclick = () => list(shown, Math.min(below, ...games.map((g) => g.id)));
  }

  async function replay(root) {
    const id = root.dataset.game;
    const data = await answer(`/api/games/${id}`, $("replay-title"));
    if (!data) return;
    const { record, layout, steps, snapshots, log } = data;
    const withSnapshot = new Set(snapshots);
    let at = steps.length - 1;
    $("replay-title").textContent = `Game ${record.id}: ${record.south} vs ${record.north} · ${record.variant}`;
    $("replay-detail").textContent = resultText(record);
    $("export-text").href = `/api/games/${id}/export?format=text`;
    $("export-json").href = `/api/games/${id}/export?format=json`;
    const moves = $("moves");
    moves.replaceChildren(...steps.slice(1).map((s) => {
      const li = Pitwatch.el("li", { class: `${s.player} pickable`, "data-ply": s.ply });
      li.append(Pitwatch.el("span", { class: "n" }, `${s.ply + 1}.`), document.createTextNode(s.move));
      li.addEventListener("click", () => show(s.ply + 1));
      return li;
    }));
    $("log").replaceChildren(...log.map((entry) => {
      const li = Pitwatch.el("li", { class: `pickable ${entry.kind}`, "data-ply": entry.ply });
      const when = entry.ply === 0 ? "before the first move" : `after move ${entry.ply}`;
      li.append(Pitwatch.el("span", { class: "muted" }, `${when}: `), document.createTextNode(logWords(entry)));
      li.addEventListener("click", () => show(entry.ply));
      return li;
    }));
    $("log-note").textContent = data.log_damage || (log.length ? "" : "Every move was seen plainly: nothing to tell.");
    function show(index) {
      at = Math.max(0, Math.min(steps.length - 1, index));
      const step = steps[at];
      Board.render($("board"), layout, step.position,
        { last: step.last, owners: step.position.owners, names: { south: record.south, north: record.north } });
      $("step-text").textContent = at === 0 ? "start position" : `after move ${at} of ${steps.length - 1}: ${step.move}`;
      moves.querySelectorAll("li").forEach((li) => li.classList.toggle("current", Number(li.dataset.ply) === at - 1));
      $("log").querySelectorAll("li").forEach((li) => li.classList.toggle("current", Number(li.dataset.ply) === at));
      const img = $("snapshot");
      const has = at > 0 && withSnapshot.has(step.ply);
      img.hidden = !has;
      $("no-snapshot").hidden = has;
      if (has) img.src = `/api/games/${id}/snapshot/${step.ply}`;
    }
    $("first").addEventListener("click", () => show(0));
    $("prev").addEventListener("click", () => show(at - 1));
    $("next").addEventListener("click", () => show(at + 1));
    $("last").addEventListener("click", () => show(steps.length - 1));
    document.addEventListener("keydown", (e) => {
      if (e.key === "ArrowLeft") show(at - 1);
      if (e.key === "ArrowRight") show(at + 1);
    });
    window.addEventListener("resize", () => show(at));  // the board's counts are sized for the screen
    show(at);
  }

  if ($("games")) list();
  const root = $("replay");
  if (root) replay(root);
})();
