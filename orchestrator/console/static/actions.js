// The console's branch form (orchestrator/console/actions.py). Every string from the server is
// put in the page with textContent, never as markup; the token goes in the X-Console-Token header.
"use strict";

const TOKEN_KEY = "rlvr-console-token";

function consoleToken(body) {
  const fragment = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fragment) {
    sessionStorage.setItem(TOKEN_KEY, fragment);
    history.replaceState(null, "", location.pathname + location.search);  // out of sight
  }
  return fragment || sessionStorage.getItem(TOKEN_KEY) || body.dataset.token || "";
}

function el(id) {
  return document.getElementById(id);
}

function setText(node, text) {
  node.textContent = text == null ? "" : String(text);
}

async function post(path, payload, token) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Console-Token": token },
    body: JSON.stringify(payload),
  });
  let data = {};
  try {
    data = await response.json();
  } catch (e) {
    data = { error: `the console answered ${response.status} without JSON` };
  }
  return { ok: response.ok, data };
}

function addRow(key, value) {
  const row = document.createElement("tr");
  for (const [cls, text] of [["key", key], ["value", value]]) {
    const cell = document.createElement("td");
    const input = document.createElement("input");
    input.className = cls;
    input.value = text;
    input.setAttribute("aria-label", cls === "key" ? "config key" : "value");
    cell.appendChild(input);
    row.appendChild(cell);
  }
  const error = document.createElement("td");
  error.className = "field-error";
  row.appendChild(error);
  const remove = document.createElement("td");
  const button = document.createElement("button");
  button.type = "button";
  setText(button, "remove");
  button.addEventListener("click", () => { row.remove(); invalidate(); });
  remove.appendChild(button);
  row.appendChild(remove);
  el("overrides").tBodies[0].appendChild(row);
}

function request(body) {
  const overrides = {};
  for (const row of el("overrides").tBodies[0].rows) {
    const key = row.querySelector("input.key").value.trim();
    if (key) overrides[key] = row.querySelector("input.value").value;
  }
  return { run_id: body.dataset.run, at_seq: Number(el("at").value), overrides };
}

let previewed = null;  // the request the shown diff belongs to

function invalidate() {
  previewed = null;
  el("start").disabled = true;
}

function clearErrors() {
  setText(el("error-at"), "");
  setText(el("overall-error"), "");
  for (const node of document.querySelectorAll("td.field-error")) setText(node, "");
  for (const node of document.querySelectorAll("input.invalid")) node.classList.remove("invalid");
}

function showErrors(errors, message) {
  let shown = false;
  for (const [field, text] of Object.entries(errors || {})) {
    if (field === "at") {
      setText(el("error-at"), text);
      el("at").classList.add("invalid");
      shown = true;
      continue;
    }
    for (const row of el("overrides").tBodies[0].rows) {
      const key = row.querySelector("input.key");
      if (key.value.trim() === field) {
        setText(row.querySelector("td.field-error"), text);
        key.classList.add("invalid");
        shown = true;
      }
    }
    if (field === "overrides") setText(el("overall-error"), text);
  }
  if (!shown && message) setText(el("overall-error"), message);
}

function showDiff(preview) {
  const body = el("diff").tBodies[0];
  body.replaceChildren();
  for (const change of preview.changes) {
    const row = document.createElement("tr");
    for (const [cls, text] of [["key", change.key], ["before", change.before], ["after", change.after]]) {
      const cell = document.createElement("td");
      cell.className = cls;
      setText(cell, text);
      row.appendChild(cell);
    }
    body.appendChild(row);
  }
  const notes = el("notes");
  notes.replaceChildren();
  for (const note of [`cut after seq ${preview.at_seq}`, ...preview.notes]) {
    const item = document.createElement("li");
    setText(item, note);
    notes.appendChild(item);
  }
  el("no-change").hidden = preview.changes.length > 0;
  el("diff-section").hidden = false;
}

async function follow(runId) {
  const answer = await fetch(`/api/actions/runs/${encodeURIComponent(runId)}`);
  if (answer.ok) {
    const state = await answer.json();
    setText(el("child-state"), state.state);
    setText(el("child-step"), state.step);
    el("started").dataset.state = state.state;
    if (["completed", "failed", "paused"].includes(state.state)) return;
  }
  setTimeout(() => follow(runId), 1000);
}

function main() {
  const body = document.body;
  const token = consoleToken(body);
  setText(el("run"), body.dataset.run);
  el("at").value = body.dataset.at;
  addRow("", "");
  const readOnly = body.dataset.readOnly === "true";
  el("read-only").hidden = !readOnly;
  for (const id of ["add", "preview", "start"]) el(id).disabled = readOnly || id === "start";
  el("form").addEventListener("input", invalidate);
  el("add").addEventListener("click", () => addRow("", ""));
  el("preview").addEventListener("click", async () => {
    clearErrors();
    invalidate();
    const payload = request(body);
    const { ok, data } = await post("/api/actions/branch/preview", payload, token);
    if (!ok) return showErrors(data.fields, data.error);
    if (!data.ok) return showErrors(data.errors, "the branch does not validate");
    showDiff(data);
    previewed = JSON.stringify(payload);
    el("start").disabled = false;
  });
  el("start").addEventListener("click", async () => {
    const payload = request(body);
    if (previewed !== JSON.stringify(payload)) return invalidate();
    el("start").disabled = true;
    clearErrors();
    const { ok, data } = await post("/api/actions/branch", payload, token);
    if (!ok) return showErrors(data.fields, data.error);
    const link = el("child-link");
    setText(link, data.run_id);
    link.href = `/runs/${encodeURIComponent(data.run_id)}`;
    el("started").hidden = false;
    follow(data.run_id);
  });
}

document.addEventListener("DOMContentLoaded", main);
