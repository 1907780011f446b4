// LUPI Lab's canvas helpers: the figure code (Go, app/paint.go) lays out
// thousands of points and hands them over in one call each, as typed
// arrays, instead of two calls a point. later() runs the figures' paints
// one per task, after the task that changed the page.
"use strict";
const MARKS_PER_PATH = 256;
const lupiLater = (() => {
  // A MessageChannel message is a task of its own, run as soon as the
  // thread is free (setTimeout would be clamped to 4 ms, and to 1 s in a
  // background tab).
  const queue = [];
  const ch = new MessageChannel();
  let posted = false;
  ch.port1.onmessage = () => {
    posted = false;
    const fn = queue.shift();
    if (queue.length) { posted = true; ch.port2.postMessage(0); }
    if (fn) {
      try { fn(); } catch (err) { console.error("lupiDraw.later:", err); }
    }
  };
  return (fn) => {
    queue.push(fn);
    if (!posted) { posted = true; ch.port2.postMessage(0); }
  };
})();
window.lupiDraw = {
  // later calls fn in a task of its own, after the tasks already queued
  // by later (one call per task, in order).
  later: lupiLater,
  // warmText draws a few characters in each font of specs on a 1 × 1
  // canvas, one font per task (later): Chromium resolves a canvas font
  // the first time it is used, which takes milliseconds to tens of
  // milliseconds a font on a busy 2-core machine. The app calls it after
  // its first figure is painted, so that the fonts only a fitted model's
  // figure uses (its colour bar's) are not resolved inside that paint.
  warmText(specs) {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const c = canvas.getContext("2d");
    for (const spec of specs) {
      lupiLater(() => {
        c.font = spec;
        c.fillText("0.123456789-e+", 0, 0);
      });
    }
  },
  // marks draws circles (shape "circle") or squares of radius rs[i] at
  // (xs[i], ys[i]), filled and/or stroked, in paths of up to MARKS_PER_PATH
  // marks: the canvas rasterises its draw calls when the task ends, and
  // filling and stroking one path of 2 000 circles took it about twice as
  // long as the same circles in paths of 256.
  marks(c, shape, xs, ys, rs, fill, stroke, width) {
    if (fill) c.fillStyle = fill;
    if (stroke) { c.strokeStyle = stroke; c.lineWidth = width; }
    for (let i0 = 0; i0 < xs.length; i0 += MARKS_PER_PATH) {
      const end = Math.min(xs.length, i0 + MARKS_PER_PATH);
      c.beginPath();
      for (let i = i0; i < end; i++) {
        const r = rs[i];
        if (shape === "square") {
          c.rect(xs[i] - r, ys[i] - r, 2 * r, 2 * r);
        } else {
          c.moveTo(xs[i] + r, ys[i]);
          c.arc(xs[i], ys[i], r, 0, 2 * Math.PI);
        }
      }
      if (fill) c.fill();
      if (stroke) c.stroke();
    }
  },
  // crosses draws ✕ marks of half-size r (in paths of up to
  // MARKS_PER_PATH, as marks).
  crosses(c, xs, ys, r, stroke, width) {
    c.strokeStyle = stroke; c.lineWidth = width;
    for (let i0 = 0; i0 < xs.length; i0 += MARKS_PER_PATH) {
      const end = Math.min(xs.length, i0 + MARKS_PER_PATH);
      c.beginPath();
      for (let i = i0; i < end; i++) {
        c.moveTo(xs[i] - r, ys[i] - r); c.lineTo(xs[i] + r, ys[i] + r);
        c.moveTo(xs[i] + r, ys[i] - r); c.lineTo(xs[i] - r, ys[i] + r);
      }
      c.stroke();
    }
  },
  // path strokes a polyline given as (x0, y0, x1, y1, …).
  path(c, pts, closed, stroke, width, dash) {
    if (pts.length < 4) return;
    c.setLineDash(dash || []);
    c.strokeStyle = stroke; c.lineWidth = width;
    c.beginPath();
    c.moveTo(pts[0], pts[1]);
    for (let i = 2; i + 1 < pts.length; i += 2) c.lineTo(pts[i], pts[i + 1]);
    if (closed) c.closePath();
    c.stroke();
    c.setLineDash([]);
  },
};
