// The run page: stage strip, synced uPlot charts with markers, live increments; the why panel and
// step view are run_detail.js, the DOM helpers (text only, never innerHTML) run_dom.js.
(function () {
  "use strict";
  var root = document.getElementById("run-page");
  var inline = root.dataset.mode === "inline";
  var apiBase = root.dataset.apiBase || "";
  var runId = root.dataset.runId || "";
  var state = { data: null, charts: [], grid: null, inlineExtra: { steps: {}, why: {} } };
  var KIND_COLOUR = {
    checkpoint: "#2b8a3e", decision: "#e8590c", rollback: "#c92a2a", rewind: "#868e96",
    fault: "#000000", branch: "#7048e8", failure: "#000000"
  };
  var dom = window.rlvrDom;
  var visible = dom.visible, el = dom.el, num = dom.num, clear = dom.clear;
  function getJSON(path) { return dom.getJSON(apiBase + path); }
  var detail = window.rlvrDetail({ inline: inline, runId: runId, apiBase: apiBase, state: state });
  var showWhy = detail.showWhy, showStep = detail.showStep, showNote = detail.showNote;

  // ---- data and its increments ----
  function abandonedBy(seq, spans) {
    for (var i = 0; i < spans.length; i++) {
      if (spans[i][0] <= seq && seq <= spans[i][1]) return spans[i][2];
    }
    return null;
  }

  function merge(into, more) {
    var key;
    for (key in more.series) into.series[key] = into.series[key].concat(more.series[key]);
    for (key in more.evals) into.evals[key] = into.evals[key].concat(more.evals[key]);
    var seenSpan = {};
    into.abandoned.concat(more.abandoned).forEach(function (s) { seenSpan[s.join(",")] = s; });
    into.abandoned = Object.keys(seenSpan).map(function (k) { return seenSpan[k]; });
    var seenT = {};
    into.thresholds.concat(more.thresholds).forEach(function (t) {
      seenT[t.metric + "|" + t.label + "|" + t.value] = t;
    });
    into.thresholds = Object.keys(seenT).map(function (k) { return seenT[k]; });
    into.markers = into.markers.concat(more.markers);
    into.baseline = more.baseline || into.baseline;
    ["last_seq", "state", "step", "stages", "failure_reason", "baseline_capability"].forEach(
      function (k) { into[k] = more[k]; });
    return into;
  }

  // One step axis for every chart: each step once, its live value in one series and values from
  // abandoned spans (or superseded by a rollback) grey in another.
  function buildGrid(data) {
    var s = data.series, steps = {}, i;
    s.step.forEach(function (x) { steps[x] = true; });
    data.evals.step.forEach(function (x) { steps[x] = true; });
    if (data.baseline) steps[0] = true;
    var xs = Object.keys(steps).map(Number).sort(function (a, b) { return a - b; });
    var at = {};
    xs.forEach(function (x, k) { at[x] = k; });
    function column() { return xs.map(function () { return null; }); }
    var grid = { x: xs, live: {}, gone: {}, evals: {}, at: at };
    var keys = ["reward", "verify_rate", "kl", "entropy", "response_len",
      "learning_rate", "kl_penalty_coef", "temperature"];
    keys.forEach(function (key) {
      grid.live[key] = column(); grid.gone[key] = column();
      for (i = 0; i < s.seq.length; i++) {
        var gone = abandonedBy(s.seq[i], data.abandoned) !== null;
        var target = gone ? grid.gone[key] : grid.live[key];
        if (!gone && grid.live[key][at[s.step[i]]] !== null) {
          grid.gone[key][at[s.step[i]]] = grid.live[key][at[s.step[i]]];
        }
        target[at[s.step[i]]] = s[key][i];
      }
    });
    grid.evals.verify_rate = column();
    grid.retention = {};
    var base = data.baseline_capability || {};
    Object.keys(base).forEach(function (b) {
      grid.retention[b] = column();
      if (data.baseline) grid.retention[b][at[0]] = 1;
    });
    for (i = 0; i < data.evals.seq.length; i++) {
      if (abandonedBy(data.evals.seq[i], data.abandoned) !== null) continue;
      var k = at[data.evals.step[i]];
      grid.evals.verify_rate[k] = data.evals.verify_rate[i];
      Object.keys(grid.retention).forEach(function (b) {
        var v = data.evals.capability[i][b];
        if (typeof v === "number" && base[b]) grid.retention[b][k] = v / base[b];
      });
    }
    if (data.baseline) grid.evals.verify_rate[at[0]] = data.baseline.verify_rate;
    return grid;
  }

  // ---- stage strip ----
  function renderStages(data) {
    var strip = clear(document.getElementById("stages"));
    data.stages.forEach(function (stage, n) {
      var box = el("div", { cls: "stage " + stage.status, "data-stage": stage.name },
        el("div", { cls: "stage-name", text: (n + 1) + ". " + stage.name }),
        el("div", { cls: "stage-status", text: stage.status }));
      stage.gates.forEach(function (g) {
        var b = el("button", {
          cls: "gate " + (g.passed ? "pass" : "fail"), type: "button", "data-gate": g.name,
          "data-seq": g.seq, "data-value": JSON.stringify(g.value),
          "data-threshold": JSON.stringify(g.threshold), "data-passed": String(g.passed),
          title: "why: seq " + g.seq
        }, el("span", { cls: "gate-name", text: g.name }),
          el("span", { cls: "gate-value", text: g.metric + " " + num(g.value) }),
          el("span", { cls: "gate-needs", text: "needs " + g.comparator + " " + num(g.threshold) }),
          el("span", { cls: "gate-result", text: g.passed ? "pass" : "FAIL" }));
        b.addEventListener("click", function () { showWhy(g.seq); });
        box.appendChild(b);
      });
      strip.appendChild(box);
    });
    document.getElementById("run-state").textContent = visible(
      data.state + " at step " + data.step + (data.failure_reason ? ": " + data.failure_reason : ""));
  }

  // ---- charts ----
  var CHARTS = [
    { id: "reward", title: "Reward (mean)", keys: ["reward"], metrics: ["reward", "reward_mean"] },
    { id: "verify_rate", title: "Verify rate (train, held-out)", keys: ["verify_rate"], evals: true,
      metrics: ["verify_rate", "heldout_verify_rate"] },
    { id: "kl", title: "KL to the reference policy", keys: ["kl"], metrics: ["kl"] },
    { id: "entropy", title: "Token entropy", keys: ["entropy"], metrics: ["entropy"] },
    { id: "response_len", title: "Response length (tokens)", keys: ["response_len"],
      metrics: ["response_len"] },
    { id: "capability", title: "Capability retention (eval / baseline)", retention: true,
      metrics: ["capability_retention"] },
    { id: "settings", title: "Settings in force", settings: true, metrics: [] }
  ];
  var PALETTE = ["#1c7ed6", "#2f9e44", "#e8590c", "#ae3ec9", "#0c8599", "#f08c00"];

  function chartData(spec, grid) {
    var cols = [grid.x], series = [{ label: "step" }];
    function add(label, col, colour, opts) {
      cols.push(col);
      series.push(Object.assign({ label: label, stroke: colour, width: 1.5, spanGaps: true }, opts || {}));
    }
    if (spec.keys) {
      spec.keys.forEach(function (k, i) {
        add(k, grid.live[k], PALETTE[i]);
        add(k + " (abandoned)", grid.gone[k], "#adb5bd",
          { width: 0, points: { show: true, size: 5, fill: "#adb5bd" }, spanGaps: false });
      });
    }
    if (spec.evals) add("held-out", grid.evals.verify_rate, PALETTE[1], { points: { show: true, size: 6 } });
    if (spec.retention) {
      Object.keys(grid.retention).forEach(function (b, i) {
        add(b, grid.retention[b], PALETTE[i % PALETTE.length], { points: { show: true, size: 6 } });
      });
    }
    if (spec.settings) {
      add("learning rate", grid.live.learning_rate, PALETTE[0], { scale: "lr", paths: uPlot.paths.stepped({ align: 1 }) });
      add("KL coefficient", grid.live.kl_penalty_coef, PALETTE[1], { scale: "coef", paths: uPlot.paths.stepped({ align: 1 }) });
      add("temperature", grid.live.temperature, PALETTE[2], { scale: "coef", paths: uPlot.paths.stepped({ align: 1 }) });
    }
    return { cols: cols, series: series };
  }

  function thresholdsFor(spec) {
    return state.data.thresholds.filter(function (t) { return spec.metrics.indexOf(t.metric) >= 0; });
  }

  function drawOverlay(u, spec) {
    var ctx = u.ctx, top = u.bbox.top, height = u.bbox.height;
    ctx.save();
    ctx.lineWidth = 1;
    ctx.setLineDash([4, 3]);
    thresholdsFor(spec).forEach(function (t) {
      var y = u.valToPos(t.value, "y", true);
      if (y < top || y > top + height) return;
      ctx.strokeStyle = "#c92a2a";
      ctx.beginPath(); ctx.moveTo(u.bbox.left, y); ctx.lineTo(u.bbox.left + u.bbox.width, y); ctx.stroke();
    });
    ctx.setLineDash([]);
    state.data.markers.forEach(function (m) {
      var x = u.valToPos(m.step, "x", true);
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
      ctx.strokeStyle = KIND_COLOUR[m.kind] || "#000";
      ctx.globalAlpha = m.kind === "checkpoint" ? 0.35 : 0.8;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
    });
    ctx.restore();
    placeMarkers(u, spec);
  }

  // Markers as buttons over the plot: they take a click (why) and show their label on hover.
  function placeMarkers(u, spec) {
    var layer = u.root.querySelector(".markers");
    if (!layer) {
      layer = el("div", { cls: "markers" });
      u.over.appendChild(layer);
    }
    clear(layer);
    var perStep = {};
    state.data.markers.forEach(function (m) {
      var x = u.valToPos(m.step, "x");
      if (x < 0 || x > u.over.clientWidth) return;
      var row = perStep[m.step] = (perStep[m.step] || 0) + 1;
      var b = el("button", {
        cls: "marker " + m.kind, type: "button", "data-kind": m.kind, "data-seq": m.seq,
        "data-step": m.step, "data-chart": spec.id, title: m.label + " (seq " + m.seq + ")",
        "aria-label": m.label
      });
      b.style.left = Math.round(x - 5) + "px";
      b.style.top = ((row - 1) * 12) + "px";
      b.style.background = KIND_COLOUR[m.kind] || "#000";
      b.addEventListener("click", function (ev) {
        ev.stopPropagation();
        if (m.explained) showWhy(m.seq); else showNote(m);
      });
      layer.appendChild(b);
    });
  }

  // A zoom on one chart (drag) or back out (double-click) moves every chart's step axis.
  var zooming = false;
  function syncZoom(u, key) {
    if (key !== "x" || zooming) return;
    zooming = true;
    var min = u.scales.x.min, max = u.scales.x.max;
    state.charts.forEach(function (c) {
      if (c.u !== u && (c.u.scales.x.min !== min || c.u.scales.x.max !== max)) c.u.setScale("x", { min: min, max: max });
    });
    zooming = false;
  }

  function renderCharts() {
    var data = state.data, grid = state.grid = buildGrid(data);
    var holder = document.getElementById("charts");
    if (state.charts.length) {
      state.charts.forEach(function (c) { c.u.setData(chartData(c.spec, grid).cols); });
      return;
    }
    clear(holder);
    var width = Math.max(480, Math.min(1100, holder.clientWidth || 900));
    CHARTS.forEach(function (spec) {
      var made = chartData(spec, grid);
      var box = el("div", { cls: "chart", id: "chart-" + spec.id, "data-chart": spec.id },
        el("h3", { text: spec.title }));
      holder.appendChild(box);
      var axes = [{ label: "step" }, { size: 60 }];
      var scales = { x: { time: false } };
      if (spec.settings) {
        scales.lr = { distr: 3 };
        axes = [{ label: "step" }, { scale: "lr", size: 70, label: "learning rate" },
          { scale: "coef", side: 1, size: 50, label: "KL coef, temp", grid: { show: false } }];
      }
      var u = new uPlot({
        width: width, height: spec.settings ? 200 : 180, series: made.series, axes: axes,
        scales: scales, cursor: { sync: { key: "run-" + runId, setSeries: false }, drag: { x: true, y: false } },
        hooks: { draw: [function (uu) { drawOverlay(uu, spec); }], setScale: [syncZoom] }
      }, made.cols, box);
      var downAt = null;
      u.over.addEventListener("mousedown", function (ev) { downAt = ev.clientX; });
      u.over.addEventListener("click", function (ev) {
        if (downAt !== null && Math.abs(ev.clientX - downAt) > 3) return;  // the end of a zoom drag
        var idx = u.cursor.idx;
        if (idx !== null && idx !== undefined) showStep(state.grid.x[idx]);
      });
      u.over.addEventListener("dblclick", function () {
        u.setScale("x", { min: state.grid.x[0], max: state.grid.x[state.grid.x.length - 1] });
      });
      state.charts.push({ spec: spec, u: u });
    });
    window.rlvrRunCharts = state.charts;
  }

  // ---- loading and live updates ----
  function renderAll() {
    renderStages(state.data);
    renderCharts();
    var list = clear(document.getElementById("marker-list"));
    state.data.markers.forEach(function (m) {
      var b = el("button", { type: "button", cls: "marker-item " + m.kind, "data-seq": m.seq, "data-kind": m.kind, text: "step " + m.step + ": " + m.label });
      b.addEventListener("click", function () { if (m.explained) showWhy(m.seq); else showNote(m); });
      list.appendChild(b);
    });
    var go = document.getElementById("step-go");
    if (go && !go.dataset.bound) {
      go.dataset.bound = "1";
      document.getElementById("step-form").addEventListener("submit", function (ev) {
        ev.preventDefault();
        var n = parseInt(document.getElementById("step-input").value, 10);
        if (!isNaN(n)) showStep(n);
      });
    }
    root.setAttribute("data-last-seq", state.data.last_seq);
    root.setAttribute("data-ready", "1");
  }

  function live() {
    if (inline || !window.EventSource) return;
    var source = new EventSource(apiBase + "/stream?after_seq=" + state.data.last_seq);
    var busy = false;
    source.addEventListener("update", function () {
      if (busy) return;
      busy = true;
      getJSON("/data?after_seq=" + state.data.last_seq).then(function (more) {
        merge(state.data, more);
        renderAll();
        state.charts.forEach(function (c) { c.u.redraw(); });
      }).then(function () { busy = false; }, function () { busy = false; });
    });
  }

  function start() {
    if (inline) {
      var blob = JSON.parse(document.getElementById("run-data").textContent);
      state.inlineExtra = { steps: blob.steps || {}, why: blob.why || {} };
      state.data = blob.page;
      renderAll();
      return;
    }
    getJSON("/data?after_seq=0").then(function (data) {
      state.data = data;
      renderAll();
      live();
    }, function (e) {
      document.getElementById("run-state").textContent = visible("cannot load the run: " + e.message);
    });
  }

  start();
})();
