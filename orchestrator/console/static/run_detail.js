// The run page's why panel and step view (run.js opens them): the explanation `rlvr why --seq N
// --json` gives, drawn, and one step's rollouts with filters. Built with run_dom.js's helpers only.
(function () {
  "use strict";
  var dom = window.rlvrDom;
  var visible = dom.visible, el = dom.el, num = dom.num, clear = dom.clear;

  // ctx: {inline, runId, apiBase, state} of the page (state.inlineExtra: a report's whys and steps).
  window.rlvrDetail = function (ctx) {
    var inline = ctx.inline, runId = ctx.runId, state = ctx.state;
    function getJSON(path) { return dom.getJSON(ctx.apiBase + path); }

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


    return { showWhy: showWhy, showStep: showStep, showNote: showNote };
  };
})();
