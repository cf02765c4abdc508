// rlvr console: the Runs, Events and Compare pages. Every value from the server is put in the
// page with textContent or as an attribute value (never innerHTML): a run's text is hostile.
"use strict";

(function () {
  const page = document.body.dataset.page;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "className") node.className = value;
      else node.setAttribute(key, String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function fmt(value) {
    if (value === null || value === undefined) return "–";
    if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toPrecision(4);
    return String(value);
  }

  function runHref(runId) {
    return "/runs/" + encodeURIComponent(runId);
  }

  async function getJSON(url) {
    const response = await fetch(url, { headers: { accept: "application/json" } });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || response.statusText);
    return body;
  }

  function setStatus(text, bad) {
    const status = document.getElementById("status");
    if (!status) return;
    status.textContent = text;
    status.className = bad ? "bad" : "muted";
  }

  // --- Runs ---------------------------------------------------------------------------------

  // Roots first, each branch right under its parent (ordered by the seq it was cut at).
  function lineageOrder(runs) {
    const byId = new Map(runs.map((r) => [r.run_id, r]));
    const children = new Map();
    const roots = [];
    for (const run of runs) {
      const parent = run.parent && byId.has(run.parent.run_id) ? run.parent.run_id : null;
      if (parent === null) roots.push(run);
      else {
        if (!children.has(parent)) children.set(parent, []);
        children.get(parent).push(run);
      }
    }
    const out = [];
    const seen = new Set();
    function visit(run, depth) {
      if (seen.has(run.run_id)) return;
      seen.add(run.run_id);
      out.push([run, depth]);
      const kids = (children.get(run.run_id) || []).sort((x, y) => x.parent.seq - y.parent.seq);
      for (const kid of kids) visit(kid, depth + 1);
    }
    roots.forEach((r) => visit(r, 0));
    runs.forEach((r) => visit(r, 0)); // a pointer loop still lists every run
    return out;
  }

  function runRow(run, depth, actions) {
    const name = el("td", { className: "run", "data-depth": depth });
    name.style.paddingLeft = 0.4 + 1.4 * depth + "em";
    if (depth > 0) name.append(el("span", { className: "branch-mark", text: "└ " }));
    name.append(el("a", { href: runHref(run.run_id), text: run.run_id }));
    if (run.parent) {
      name.append(el("span", {
        className: "cut muted",
        text: " branch of " + run.parent.run_id + " at seq " + run.parent.seq,
      }));
    }
    if (run.hidden) name.append(el("span", { className: "muted", text: " (hidden)" }));
    const health = el("td", { className: "health health-" + String(run.health_word).replace(/[^a-z]/g, "-"), title: run.health, text: run.health_word });
    if (run.pause_reason) health.append(el("div", { className: "muted", text: run.pause_reason }));
    if (run.error) health.append(el("div", { className: "bad", text: run.error }));
    const m = run.metrics || {};
    return el("tr", { id: "run-" + run.run_id, "data-run": run.run_id },
      name,
      el("td", { text: run.state }),
      el("td", { text: fmt(run.stage) }),
      el("td", { className: "num", text: fmt(run.step) }),
      health,
      el("td", { className: "num", text: fmt(m.reward_mean) }),
      el("td", { className: "num", text: fmt(m.verify_rate) }),
      el("td", { className: "num", text: fmt(m.kl) }),
      el("td", { className: "muted", title: run.last_event_at, text: fmt(run.last_event) + " #" + run.last_seq }),
      el("td", {},
        el("a", { href: runHref(run.run_id) + "/events", text: "events" }),
        run.parent ? " · " : null,
        run.parent ? el("a", { href: "/compare?a=" + encodeURIComponent(run.parent.run_id) + "&b=" + encodeURIComponent(run.run_id), text: "compare" }) : null,
        actions ? " · " : null,
        actions ? el("a", { className: "branch-link", href: runHref(run.run_id) + "/branch", text: "branch" }) : null));
  }

  async function loadRuns() {
    try {
      const body = await getJSON("/api/runs");
      const tbody = document.querySelector("#runs tbody");
      tbody.replaceChildren(...lineageOrder(body.runs).map(([run, depth]) => runRow(run, depth, body.actions)));
      setStatus(body.runs.length + " runs" + (body.read_only ? " (read-only console)" : ""));
      document.body.dataset.loaded = String(Date.now());
    } catch (e) {
      setStatus("could not list runs: " + e.message, true);
    }
  }

  function runsPage() {
    loadRuns();
    const stream = new EventSource("/api/runs/stream");
    stream.addEventListener("update", loadRuns);
    window.addEventListener("pagehide", () => stream.close());
  }

  // --- Events -------------------------------------------------------------------------------

  function eventRow(event) {
    const anchor = "seq-" + event.seq;
    const payload = el("pre", { className: "payload", text: event.payload });
    const cell = el("td", {}, payload);
    if (event.truncated) cell.append(el("div", { className: "muted", text: "(payload cut short here)" }));
    const owner = event.run_id !== document.body.dataset.run
      ? el("div", { className: "muted", text: "stored in " + event.run_id }) : null;
    return el("tr", { id: anchor },
      el("td", { className: "num" }, el("a", { href: "#" + anchor, text: String(event.seq) })),
      el("td", {}, el("span", { text: event.type }), owner),
      el("td", { className: "muted", text: event.recorded_at }),
      cell);
  }

  function showChain(chain, lastSeq) {
    const p = document.getElementById("chain");
    if (chain.broken_at !== null) {
      p.textContent = "chain BROKEN at seq " + chain.broken_at + " (verified up to seq " + chain.verified_to + "): " + chain.reason;
      p.className = "chain bad";
    } else {
      p.textContent = "chain verified up to seq " + chain.verified_to + " of " + lastSeq;
      p.className = "chain good";
    }
  }

  function eventsPage() {
    const runId = document.body.dataset.run;
    const params = new URLSearchParams(location.search);
    const type = params.get("type") || "";
    const select = document.getElementById("type");
    const more = document.getElementById("more");
    const tbody = document.querySelector("#events tbody");
    const target = /^#seq-(\d+)$/.exec(location.hash);
    let after = target ? Math.max(Number(target[1]) - 1, 0) : 0;
    if (target && type) after = 0; // a filtered list starts at the top

    async function load() {
      const query = new URLSearchParams({ after_seq: String(after) });
      if (type) query.set("type", type);
      try {
        const body = await getJSON("/api/runs/" + encodeURIComponent(runId) + "/events?" + query);
        if (select.options.length === 1) {
          for (const name of body.types) select.append(el("option", { value: name, text: name }));
          select.value = type;
        }
        showChain(body.chain, body.last_seq);
        tbody.append(...body.events.map(eventRow));
        after = body.next_after_seq;
        more.hidden = after === null;
        setStatus(body.page_error ? body.page_error : tbody.rows.length + " events shown" + (type ? " of type " + type : ""), Boolean(body.page_error));
        if (target) {
          const row = document.getElementById(target[0].slice(1));
          if (row) { row.classList.add("target"); row.scrollIntoView(); }
        }
        document.body.dataset.loaded = String(Date.now());
      } catch (e) {
        setStatus("could not read the events: " + e.message, true);
      }
    }
    more.addEventListener("click", load);
    document.getElementById("filter").addEventListener("submit", (event) => {
      event.preventDefault();
      const next = new URLSearchParams();
      if (select.value) next.set("type", select.value);
      location.assign(location.pathname + (select.value ? "?" + next : ""));
    });
    load();
  }

  // --- Compare ------------------------------------------------------------------------------

  const COLOURS = ["#1f77b4", "#d62728"];

  function chart(metric, body) {
    const steps = Array.from(new Set([...body.a.step, ...body.b.step])).sort((x, y) => x - y);
    const column = (side) => {
      const at = new Map(side.step.map((s, i) => [s, side[metric][i]]));
      return steps.map((s) => (at.has(s) ? at.get(s) : null));
    };
    const holder = el("div", { className: "chart", "data-metric": metric });
    const cut = body.branch_point ? body.branch_point.step : null;
    const opts = {
      title: metric, width: 720, height: 220,
      scales: { x: { time: false } },
      series: [{ label: "step" },
        { label: body.a.run_id, stroke: COLOURS[0] },
        { label: body.b.run_id, stroke: COLOURS[1], dash: [6, 4] }],
      hooks: { draw: [(u) => {
        if (cut === null) return;
        const x = u.valToPos(cut, "x", true);
        const ctx = u.ctx;
        ctx.save(); ctx.strokeStyle = "#888"; ctx.setLineDash([2, 3]);
        ctx.beginPath(); ctx.moveTo(x, u.bbox.top); ctx.lineTo(x, u.bbox.top + u.bbox.height); ctx.stroke();
        ctx.restore();
      }] },
    };
    new window.uPlot(opts, [steps, column(body.a), column(body.b)], holder);
    return holder;
  }

  function compareTable(body) {
    const thead = document.querySelector("#compare thead");
    const tbody = document.querySelector("#compare tbody");
    const head = el("tr", {}, el("th", { text: "step" }));
    for (const metric of body.metrics) {
      head.append(el("th", { text: metric + " (A)" }), el("th", { text: metric + " (B)" }));
    }
    thead.replaceChildren(head);
    const steps = Array.from(new Set([...body.a.step, ...body.b.step])).sort((x, y) => x - y);
    const index = (side) => new Map(side.step.map((s, i) => [s, i]));
    const ia = index(body.a), ib = index(body.b);
    const cut = body.branch_point ? body.branch_point.step : null;
    tbody.replaceChildren(...steps.slice(-200).map((s) => {
      const row = el("tr", { className: s === cut ? "branch-point" : null, "data-step": s }, el("td", { className: "num", text: String(s) + (s === cut ? " ← branch point" : "") }));
      for (const metric of body.metrics) {
        row.append(el("td", { className: "num", text: fmt(ia.has(s) ? body.a[metric][ia.get(s)] : null) }),
                   el("td", { className: "num", text: fmt(ib.has(s) ? body.b[metric][ib.get(s)] : null) }));
      }
      return row;
    }));
  }

  async function comparePage() {
    const params = new URLSearchParams(location.search);
    document.getElementById("a").value = params.get("a") || "";
    document.getElementById("b").value = params.get("b") || "";
    const query = new URLSearchParams();
    for (const side of ["a", "b"]) if (params.get(side)) query.set(side, params.get(side));
    try {
      const body = await getJSON("/api/compare?" + query);
      document.getElementById("a").value = body.a.run_id;
      document.getElementById("b").value = body.b.run_id;
      const point = body.branch_point
        ? " · branch point: seq " + body.branch_point.seq + ", step " + body.branch_point.step : "";
      setStatus("A " + body.a.run_id + " (solid) vs B " + body.b.run_id + " (dashed)" + point);
      if (window.uPlot) {
        document.getElementById("charts").replaceChildren(...body.metrics.map((m) => chart(m, body)));
      }
      compareTable(body);
      document.body.dataset.loaded = String(Date.now());
    } catch (e) {
      setStatus("could not compare: " + e.message, true);
    }
  }

  if (page === "runs") runsPage();
  else if (page === "events") eventsPage();
  else if (page === "compare") comparePage();
})();
