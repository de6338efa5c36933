// Shared helpers: control requests carry the CSRF token (and the access token when served on the network);
// a result's words, the same on every page.
"use strict";

const Pitwatch = (() => {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const params = new URLSearchParams(location.search);
  if (params.has("token")) {  // keep the access token for this tab only, and out of the address bar
    sessionStorage.setItem("pitwatch-token", params.get("token"));
    params.delete("token");
    history.replaceState(null, "", location.pathname + (params.toString() ? "?" + params : ""));
  }

  function toast(message) {
    const el = document.getElementById("toast");
    if (!el) return;
    el.textContent = message;
    el.classList.add("show");
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => el.classList.remove("show"), 5000);
  }

  // How long a control waits for its answer. A Pitwatch that hangs keeps the request open, and the
  // players, told nothing, pressed again and again (a browser audit, 2026-12-07).
  const ANSWER_WAIT_MS = 15000;

  // A control request: resolves to the answer, or rejects once the player has been told why it was refused.
  async function post(url, body) {
    const headers = { "Content-Type": "application/json", "X-CSRF-Token": csrf };
    const token = sessionStorage.getItem("pitwatch-token");
    if (token) headers["X-Pitwatch-Token"] = token;
    const waiting = new AbortController();
    const timer = setTimeout(() => waiting.abort(), ANSWER_WAIT_MS);
    let response;
    try {
      response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body || {}), signal: waiting.signal });
    } catch (error) {
      // Pitwatch stopped or restarting: the action was not taken. Or it did not answer in time: the action
      // may yet be taken when it does, so the players look before they try again.
      const message = waiting.signal.aborted
        ? `Pitwatch did not answer within ${ANSWER_WAIT_MS / 1000} s: look at the board before trying again`
        : "Pitwatch cannot be reached: the action was not taken, try again";
      toast(message);
      throw new Error(message);
    } finally {
      clearTimeout(timer);
    }
    const data = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok) {
      toast(data.error || `request failed (${response.status})`);
      throw new Error(data.error);
    }
    return data;
  }

  // A control sent from a button: the refusal is told in the toast, and there is nothing more to do with it.
  function control(url, body) {
    return post(url, body).catch(() => null);
  }

  // A finished game's score, the winner's first ("115–0"); a draw's South's first.
  function score(result) {
    const { south, north } = result.score;
    return result.winner === "north" ? `${north}–${south}` : `${south}–${north}`;
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  return { post, control, toast, el, score };
})();
