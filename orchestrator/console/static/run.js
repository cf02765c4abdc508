// The run page: stage strip, synced uPlot charts with markers, the why panel and the step view.
// Every string from the log (prompts, completions, reasons, labels) is model or data text: the DOM
// is built with createElement and textContent only, never innerHTML, and controls are made visible.
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
  // C0/C1 controls (but tab and newline), bidi overrides and isolates, zero-width marks.
  var CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

  function visible(value) {
    if (value === null || value === undefined) return "";
    return String(value).replace(CONTROLS, function (c) {
      var hex = c.charCodeAt(0).toString(16).toUpperCase();
      return "\u27e8U+" + ("0000" + hex).slice(-4) + "\u27e9";
    });
  }

  function el(tag, attrs) {
    var node = document.createElement(tag);
    var key;
    for (key in attrs || {}) {
      if (key === "text") node.textContent = visible(attrs[key]);
      else if (key === "cls") node.className = attrs[key];
      else if (key.slice(0, 5) === "data-") node.setAttribute(key, String(attrs[key]));
      else if (key === "href") node.setAttribute("href", safeHref(attrs[key]));
      else node.setAttribute(key, visible(attrs[key]));
    }
    for (var i = 2; i < arguments.length; i++) {
      if (arguments[i] !== null && arguments[i] !== undefined) node.appendChild(arguments[i]);
    }
    return node;
  }

  // Links the page makes are its own: a relative path or a fragment, never a scheme.
  function safeHref(href) {
    return /^(\/|#)/.test(href) && href.indexOf("//") !== 0 ? href : "#";
  }

  function num(value) {
    if (value === null || value === undefined) return "-";
    if (typeof value !== "number") return visible(value);
    return Math.abs(value) >= 1e4 || (value !== 0 && Math.abs(value) < 1e-3)
      ? value.toExponential(3) : String(+value.toPrecision(4));
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function getJSON(path) {
    return fetch(apiBase + path, { credentials: "same-origin" }).then(function (r) {
      if (!r.ok) {
        return r.text().then(function (t) {
          var said = t;
          try { said = JSON.parse(t).error || t; } catch (e) { said = t; }
          throw new Error(said || r.statusText);
        });
      }
      return r.json();
    });
  }

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

  // ---- why panel ----
  function panel(title) {
    var p = clear(document.getElementById("detail"));
    p.hidden = false;
    var close = el("button", { type: "button", cls: "close", "aria-label": "close", text: "\u00d7" });
    close.addEventListener("click", function () { p.hidden = true; });
    p.appendChild(close);
    p.appendChild(el("h2", { text: title }));
    return p;
  }

  function showNote(m) {
    var p = panel(m.label);
    p.appendChild(el("p", { text: m.kind + " at step " + m.step + ", seq " + m.seq }));
    p.appendChild(seqLink(m.seq));
  }

  function seqLink(seq) {
    if (inline) return el("span", { cls: "seq", "data-seq": seq, text: "seq " + seq });
    return el("a", { cls: "seq", "data-seq": seq, href: "/runs/" + encodeURIComponent(runId) + "/events#seq-" + seq, text: "seq " + seq });
  }

  function whyFor(seq) {
    if (inline) {
      var found = state.inlineExtra.why[String(seq)];
      return found ? Promise.resolve(found)
        : Promise.reject(new Error("this report holds no explanation of seq " + seq + "; run: rlvr why " + runId + " --seq " + seq));
    }
    return getJSON("/why/" + seq);
  }

  function showWhy(seq) {
    var p = panel("Why: seq " + seq);
    p.setAttribute("data-why-seq", seq);
    whyFor(seq).then(function (why) {
      why.items.forEach(function (item) { p.appendChild(whyItem(item)); });
    }, function (e) { p.appendChild(el("p", { cls: "error", text: e.message })); });
  }

  function evidenceList(title, list, cls) {
    if (!list || !list.length) return null;
    var ul = el("ul", { cls: cls });
    list.forEach(function (ev) {
      var li = el("li", { "data-seq": ev.seq }, seqLink(ev.seq), el("span", { text: " " + ev.type + ": " + ev.summary }));
      (ev.details || []).forEach(function (d) { li.appendChild(el("div", { cls: "ev-detail", text: d })); });
      ul.appendChild(li);
    });
    return el("div", { cls: "why-list" }, el("h4", { text: title }), ul);
  }

  function whyItem(item) {
    var box = el("section", {
      cls: "why-item " + item.kind, "data-seq": item.seq, "data-kind": item.kind,
      "data-value": JSON.stringify(item.value), "data-threshold": JSON.stringify(item.threshold)
    });
    box.appendChild(el("h3", { cls: "headline", text: item.headline }));
    if (item.abandoned_by) box.appendChild(el("p", { cls: "gone", text: "abandoned by the rewind at seq " + item.abandoned_by }));
    var rule = el("dl", { cls: "rule" });
    function row(k, v) { if (v !== null && v !== undefined && v !== "") { rule.appendChild(el("dt", { text: k })); rule.appendChild(el("dd", { text: v })); } }
    row("rule", item.kind + " " + item.name);
    row("metric", item.metric);
    row("value", item.value === null ? null : String(item.value));
    row("threshold", item.threshold === null ? null : (item.comparator ? item.comparator + " " : "") + item.threshold);
    row("detail", item.detail);
    (item.settings || []).forEach(function (s) { row("setting " + s.key, JSON.stringify(s.value)); });
    row("try another value", item.branch_command);
    row("in short", item.story);
    box.appendChild(rule);
    if (item.window) box.appendChild(windowChart(item));
    else if (retentionOf(item)) box.appendChild(retentionChart(item, retentionOf(item)));
    [evidenceList("Evidence", item.evidence, "evidence"), evidenceList("Causes", item.causes, "causes"),
      evidenceList("What followed", item.then, "then")].forEach(function (n) { if (n) box.appendChild(n); });
    return box;
  }

  function windowChart(item) {
    var w = item.window;
    var holder = el("div", {
      cls: "window", "data-metric": w.metric, "data-threshold": JSON.stringify(item.threshold),
      "data-values": JSON.stringify(w.values), "data-steps": JSON.stringify(w.steps)
    });
    holder.appendChild(el("p", {
      cls: "window-text", text: w.metric + " at steps " + w.steps.join(", ") + ": " +
        w.values.map(num).join(", ") + (w.combined !== null ? " (" + w.how + " " + num(w.combined) + ")" : "") +
        (item.threshold !== null ? "; threshold " + num(item.threshold) : "")
    }));
    var xs = w.steps.length > 1 ? w.steps : [w.steps[0] - 0.5, w.steps[0], w.steps[0] + 0.5];
    var vals = w.steps.length > 1 ? w.values : [null, w.values[0], null];
    var thr = xs.map(function () { return item.threshold; });
    var series = [{ label: "step" }, { label: w.metric, stroke: "#1c7ed6", width: 2, points: { show: true, size: 7 } },
      { label: "threshold", stroke: "#c92a2a", dash: [5, 4], width: 1.5 }];
    var cols = [xs, vals, thr];
    if (w.combined !== null && w.how === "mean") {
      series.push({ label: "mean", stroke: "#e8590c", width: 1.5 });
      cols.push(xs.map(function () { return w.combined; }));
    }
    setTimeout(function () {
      new uPlot({ width: 420, height: 160, series: series, scales: { x: { time: false } } }, cols, holder);
    }, 0);
    return holder;
  }

  // A capability rule reads an eval against the baseline: each benchmark's eval / baseline.
  function retentionOf(item) {
    if (!item.metric || item.metric.indexOf("capability") !== 0) return null;
    var ev = (item.evidence || []).filter(function (e) { return e.type === "EvalRecorded"; })[0];
    if (!ev || !ev.data || !ev.data.benchmarks) return null;
    var rows = ev.data.benchmarks.filter(function (b) { return typeof b.baseline === "number" && b.baseline; });
    return rows.length ? { step: ev.data.step, rows: rows } : null;
  }

  function retentionChart(item, found) {
    var names = found.rows.map(function (b) { return b.benchmark; });
    var ratios = found.rows.map(function (b) { return b.value / b.baseline; });
    var holder = el("div", {
      cls: "window retention", "data-metric": item.metric, "data-threshold": JSON.stringify(item.threshold),
      "data-benchmarks": JSON.stringify(names), "data-values": JSON.stringify(ratios)
    });
    holder.appendChild(el("p", {
      cls: "window-text", text: "eval at step " + found.step + " / baseline: " + found.rows.map(function (b, i) {
        return b.benchmark + " " + num(b.value) + " / " + num(b.baseline) + " = " + num(ratios[i]);
      }).join(", ") + (item.threshold !== null ? "; threshold " + num(item.threshold) : "")
    }));
    var xs = names.map(function (_, i) { return i; });
    var series = [{ label: "benchmark" },
      { label: "eval / baseline", stroke: "#1c7ed6", width: 0, points: { show: true, size: 9, fill: "#1c7ed6" } },
      { label: "threshold", stroke: "#c92a2a", dash: [5, 4], width: 1.5 }];
    var cols = [xs, ratios, xs.map(function () { return item.threshold; })];
    setTimeout(function () {
      new uPlot({
        width: 420, height: 160, series: series,
        scales: { x: { time: false, range: [-0.5, names.length - 0.5] } },
        axes: [{ values: function (u, ticks) { return ticks.map(function (t) { return names[t] !== undefined && t === Math.round(t) ? visible(names[t]) : ""; }); } }, {}]
      }, cols, holder);
    }, 0);
    return holder;
  }

  // ---- step view ----
  function stepFor(step) {
    if (inline) {
      var found = state.inlineExtra.steps[String(step)];
      return found ? Promise.resolve(found)
        : Promise.reject(new Error("this report holds the rollouts of steps " + Object.keys(state.inlineExtra.steps).join(", ") + " only"));
    }
    return getJSON("/step/" + step);
  }

  function showStep(step) {
    var p = panel("Step " + step);
    p.setAttribute("data-step", step);
    stepFor(step).then(function (d) { renderStep(p, d); },
      function (e) { p.appendChild(el("p", { cls: "error", text: e.message })); });
  }

  function categoryOf(group) {
    var extra = group.extra || {};
    if (extra.category) return String(extra.category);
    var id = String(group.task_id || "");
    var cut = id.search(/[-_:/]/);
    return cut > 0 ? id.slice(0, cut) : id;
  }

  function renderStep(p, d) {
    if (!d.attempts.length) { p.appendChild(el("p", { text: "no rollouts were logged at step " + d.step })); return; }
    var filters = el("div", { cls: "filters" });
    var verdict = el("select", { id: "f-verdict" });
    ["all", "pass", "fail", "unjudged"].forEach(function (v) { verdict.appendChild(el("option", { value: v, text: v })); });
    var minReward = el("input", { id: "f-reward", type: "number", step: "any", placeholder: "min reward" });
    var category = el("select", { id: "f-category" });
    category.appendChild(el("option", { value: "", text: "every category" }));
    var search = el("input", { id: "f-search", type: "search", placeholder: "search text" });
    var cats = {};
    d.attempts.forEach(function (a) { a.groups.forEach(function (g) { cats[categoryOf(g)] = true; }); });
    Object.keys(cats).sort().forEach(function (c) { category.appendChild(el("option", { value: c, text: c })); });
    [el("label", { text: "verdict " }, verdict), el("label", { text: " reward >= " }, minReward),
      el("label", { text: " category " }, category), el("label", { text: " " }, search)].forEach(function (n) { filters.appendChild(n); });
    p.appendChild(filters);
    var body = el("div", { cls: "step-body" });
    p.appendChild(body);
    function draw() {
      clear(body);
      d.attempts.forEach(function (a) { body.appendChild(attemptView(a, {
        verdict: verdict.value, minReward: minReward.value === "" ? null : Number(minReward.value),
        category: category.value, search: search.value.toLowerCase()
      })); });
    }
    [verdict, category].forEach(function (n) { n.addEventListener("change", draw); });
    [minReward, search].forEach(function (n) { n.addEventListener("input", draw); });
    draw();
  }

  function keep(group, r, f) {
    if (f.verdict === "pass" && r.passed !== true) return false;
    if (f.verdict === "fail" && r.passed !== false) return false;
    if (f.verdict === "unjudged" && r.passed !== null && r.passed !== undefined) return false;
    if (f.minReward !== null && !(typeof r.reward === "number" && r.reward >= f.minReward)) return false;
    if (f.category && categoryOf(group) !== f.category) return false;
    if (f.search) {
      var hay = [group.prompt, r.completion, r.reason, group.task_id, JSON.stringify(group.extra)].join("\n").toLowerCase();
      if (hay.indexOf(f.search) < 0) return false;
    }
    return true;
  }

  function attemptView(a, f) {
    var box = el("section", { cls: "attempt" + (a.abandoned_by ? " gone" : ""), "data-seq": a.seq });
    box.appendChild(el("h3", { text: "rollouts at seq " + a.seq + (a.attempt ? " (attempt " + a.attempt + ")" : "") +
      (a.n_total !== undefined ? ": " + a.n_passed + " of " + a.n_total + " passed" : "") +
      (a.abandoned_by ? ", abandoned by the rewind at seq " + a.abandoned_by : "") }));
    if (a.text !== "inline" && a.text !== "blob") box.appendChild(el("p", { cls: "note", text: a.text === "none" ? "no rollout text was logged for this step; rewards from the log" : a.text }));
    a.groups.forEach(function (g) {
      var shown = g.rollouts.filter(function (r) { return keep(g, r, f); });
      if (!shown.length) return;
      var gbox = el("div", { cls: "group", "data-group": g.index });
      gbox.appendChild(el("div", { cls: "group-head", text: "group " + g.index + (g.task_id ? " \u00b7 task " + g.task_id : "") + " \u00b7 " + categoryOf(g) }));
      if (g.prompt !== null && g.prompt !== undefined) gbox.appendChild(el("pre", { cls: "prompt", text: g.prompt }));
      Object.keys(g.extra || {}).forEach(function (k) {
        gbox.appendChild(el("div", { cls: "extra" }, el("b", { text: k + ": " }), el("span", { text: typeof g.extra[k] === "string" ? g.extra[k] : JSON.stringify(g.extra[k]) })));
      });
      shown.forEach(function (r) {
        var cls = r.passed === true ? "pass" : r.passed === false ? "fail" : "unjudged";
        var facts = "reward " + num(r.reward) + " \u00b7 advantage " + num(r.advantage) + " \u00b7 " +
          (r.passed === true ? "pass" : r.passed === false ? "fail" : "no verdict") +
          (r.status ? " (" + r.status + ")" : "") + (r.length !== null ? " \u00b7 " + r.length + " tokens" : "") +
          (r.truncated ? " \u00b7 truncated" : "");
        gbox.appendChild(el("div", { cls: "rollout " + cls, "data-reward": JSON.stringify(r.reward) },
          el("div", { cls: "facts", text: facts }),
          r.completion !== null ? el("pre", { cls: "completion", text: r.completion }) : null,
          r.reason ? el("div", { cls: "reason", text: "reason: " + r.reason }) : null));
      });
      box.appendChild(gbox);
    });
    return box;
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
