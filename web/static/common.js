// Shared helpers: control requests carry the CSRF token (and the access token when served on the network).
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

  async function post(url, body) {
    const headers = { "Content-Type": "application/json", "X-CSRF-Token": csrf };
    const token = sessionStorage.getItem("pitwatch-token");
    if (token) headers["X-Pitwatch-Token"] = token;
    let response;
    try {
      response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body || {}) });
    } catch (error) {  // Pitwatch stopped or restarting: the action was not taken, and the player must see that
      toast("Pitwatch cannot be reached: the action was not taken, try again");
      throw error;
    }
    const data = await response.json().catch(() => ({ error: response.statusText }));
    if (!response.ok) {
      toast(data.error || `request failed (${response.status})`);
      throw new Error(data.error);
    }
    return data;
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  return { post, toast, el };
})();
