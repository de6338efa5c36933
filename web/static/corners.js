// Board corners: the player clicks the board's four outline corners on the camera's picture.
// Points are kept in camera pixels, so the picture may be shown at any size.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const NAMES = ["near-left", "near-right", "far-right", "far-left"];
  const WHERE = ["nearest the camera, on the left", "nearest the camera, on the right",
    "across the board, on the right", "across the board, on the left"];
  const POLL_MS = 1000;
  const picture = $("corner-picture");
  const marks = $("corner-marks");
  let size = null;    // [width, height] of the picture shown: camera pixels
  let points = [];    // the corners clicked so far, camera pixels
  let inUse = null;   // the corners the camera reads the board from, or null (markers)

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function message(text, kind) {
    $("corner-message").textContent = text;
    $("corner-message").className = kind || "";
  }

  // Where a click landed on the picture, in camera pixels, whatever size the picture is shown at.
  function cameraPoint(event) {
    const box = picture.getBoundingClientRect();
    const x = (event.clientX - box.left) * size[0] / box.width;
    const y = (event.clientY - box.top) * size[1] / box.height;
    return [Math.round(x * 10) / 10, Math.round(y * 10) / 10];
  }

  function draw() {
    const n = points.length;
    $("corner-prompt").textContent = !size ? "Waiting for the camera's picture…"
      : n < 4 ? `Click corner ${n + 1}: ${NAMES[n]} (${WHERE[n]})`
        : "All four corners are clicked: check the outline, then use these corners";
    document.querySelectorAll("#corner-list li").forEach((li, k) => {
      li.classList.toggle("done", k < n);
      li.classList.toggle("next", k === n);
    });
    $("btn-undo").disabled = n === 0;
    $("btn-restart").disabled = n === 0;
    $("btn-confirm").disabled = n !== 4;
    $("btn-markers").hidden = inUse === null;
    marks.replaceChildren();
    if (!size) return;
    const unit = size[0] / picture.getBoundingClientRect().width;  // camera pixels per screen pixel
    const line = (pts) => pts.map(([x, y]) => `${x},${y}`).join(" ");
    if (inUse) marks.append(svg("polygon", { class: "in-use", points: line(inUse), "vector-effect": "non-scaling-stroke" }));
    if (n > 1) marks.append(svg(n === 4 ? "polygon" : "polyline", { class: "outline", points: line(points), "vector-effect": "non-scaling-stroke" }));
    points.forEach(([x, y], k) => {
      const g = svg("g", { class: "point", "data-corner": k });
      const side = x > size[0] / 2 ? -1 : 1;  // the name towards the middle: never cut off at the edge
      g.append(svg("circle", { cx: x, cy: y, r: 11 * unit, "vector-effect": "non-scaling-stroke" }),
        svg("text", { x, y, "font-size": 14 * unit }, String(k + 1)),
        svg("text", { class: `name ${side > 0 ? "right" : "left"}`, x: x + side * 15 * unit, y: y - 15 * unit,
          "font-size": 13 * unit }, NAMES[k]));
      marks.append(g);
    });
  }

  function loadPicture() {
    picture.src = `/camera/picture.jpg?at=${Date.now()}`;
  }
  picture.addEventListener("load", () => {
    size = [picture.naturalWidth, picture.naturalHeight];
    marks.setAttribute("viewBox", `0 0 ${size[0]} ${size[1]}`);
    draw();
  });

  marks.addEventListener("click", (event) => {
    if (!size) return;
    if (points.length === 4) {
      message("All four corners are clicked: undo the last point or start over to change them.", "bad");
      return;
    }
    points.push(cameraPoint(event));
    message("");
    draw();
  });
  $("btn-undo").addEventListener("click", () => { points.pop(); message(""); draw(); });
  $("btn-restart").addEventListener("click", () => { points = []; message(""); draw(); });
  $("btn-picture").addEventListener("click", loadPicture);
  window.addEventListener("resize", draw);

  function used(answer, text) {
    points = [];
    show(answer);
    message(text, "ok");
    $("corner-result").hidden = false;
  }
  $("btn-confirm").addEventListener("click", () => {
    Pitwatch.post("/api/camera/corners", { corners: points }).then(
      (answer) => used(answer, `Saved in ${answer.calibration}: the board is read from these corners from now on.`),
      (error) => message(error.message || "the corners were not used", "bad"));
  });
  // The clicked corners are the only way to read a board without markers: forgotten only when the player says so.
  $("btn-markers").addEventListener("click", () => {
    if (!confirm(`Find the board by its markers from now on? The corners saved in ${$("calibration-file").textContent} `
      + "are forgotten: a board without markers is then not read until its corners are clicked again.")) return;
    Pitwatch.post("/api/camera/corners", { corners: null }).then(
      (answer) => used(answer, `Saved in ${answer.calibration}: the board is found by its markers from now on.`),
      (error) => message(error.message || "not changed", "bad"));
  });

  function show(state) {
    inUse = state.corners;
    $("calibration-file").textContent = state.calibration;
    $("camera-status").textContent = state.status;
    draw();
  }

  // The camera's status and the corners in use, kept fresh; the camera view once corners were used.
  // (No picture yet: the camera is starting; the next poll asks again.)
  async function poll() {
    try {
      show(await (await fetch("/api/camera/corners")).json());
      if (!size) loadPicture();
      if (!$("corner-result").hidden) $("corner-live").src = `/camera.jpg?at=${Date.now()}`;
    } catch (error) {
      $("camera-status").textContent = "Pitwatch cannot be reached";
    } finally {
      setTimeout(poll, POLL_MS);
    }
  }
  poll();
})();
