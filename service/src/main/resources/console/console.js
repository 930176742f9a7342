// The sendlog support console: plain JavaScript, no build step, talking to the API of API.md on the same origin.
// Every value that comes from the API is put on the page as text (textContent, setAttribute), never as HTML.
"use strict";

(() => {
  const KEY = "sendlog.console.key";
  const PAGE_SIZE = 50;
  // API.md: a re-drive is taken only for DEAD, UNKNOWN (before it was sent) and RETRYING; the service decides.
  const REDRIVABLE = new Set(["DEAD", "UNKNOWN", "RETRYING"]);
  // SCHEDULED (waiting for its sendAt) or ACCEPTED before its first claim; the API refuses a claimed one (409), which
  // the console then shows.
  const CANCELLABLE = new Set(["SCHEDULED", "ACCEPTED"]);
  // Statuses that change without anyone acting: an open message in one of these is read again every few seconds.
  const MOVING = new Set(["SCHEDULED", "ACCEPTED", "SENDING", "RETRYING"]);
  const FOLLOW_MS = 2000;
  // "priority" is shown only when the API names one: it names only high (normal is the default).
  const FIELDS = ["id", "tenant", "status", "priority", "to", "from", "validUntil", "sendAt", "reference", "gateway", "providerId", "attempts", "segments", "acceptedAt",
    "updatedAt", "lastError"];
  // Shown in the browser's time zone, the API's UTC value on hover and in the datetime attribute.
  const TIMES = new Set(["validUntil", "sendAt", "acceptedAt", "updatedAt"]);
  const NO_MESSAGE = "00000000-0000-0000-0000-000000000000";

  const $ = (id) => document.getElementById(id);

  const state = {
    role: null, // "support", "admin", or "client" (a tenant's own key: its messages only, search and cancel)
    view: "search",
    listView: "search", // where "Back" returns from a message
    search: { params: null, cursor: null },
    dead: { cursor: null },
    parked: { cursor: null },
    webhooks: { cursor: null },
    suppressions: { tenant: null, cursor: null },
    openId: null,
    follow: null,
    pipeline: { timer: null, data: null, charts: {} },
  };
  const PIPELINE_MS = 5000;

  /** A problem+json answer (RFC 9457), or a network failure shaped like one. */
  class Problem extends Error {
    constructor(status, body) {
      const problem = body && typeof body === "object" ? body : {};
      super(problem.title || `HTTP ${status}`);
      this.status = status;
      this.title = problem.title || `HTTP ${status}`;
      this.detail = typeof problem.detail === "string" ? problem.detail : "";
      this.errors = Array.isArray(problem.errors) ? problem.errors : [];
    }
  }

  /** Builds an element; children are nodes or text (strings become text nodes, never markup). */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === null || value === undefined || value === false) {
        continue;
      }
      if (name.startsWith("on")) {
        node.addEventListener(name.slice(2), value);
      } else {
        node.setAttribute(name, value === true ? "" : String(value));
      }
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined) {
        node.append(child instanceof Node ? child : String(child));
      }
    }
    return node;
  }

  const text = (value) => (value === null || value === undefined || value === "" ? "—" : String(value));

  async function api(method, path, body) {
    const headers = { Accept: "application/json", Authorization: `Bearer ${sessionStorage.getItem(KEY) || ""}` };
    const init = { method, headers, cache: "no-store", credentials: "omit" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (e) {
      throw new Problem(0, { title: "The service did not answer", detail: String(e.message || e) });
    }
    const type = response.headers.get("Content-Type") || "";
    let json = null;
    if (type.includes("json")) {
      try {
        json = await response.json();
      } catch (e) {
        json = null;
      }
    }
    if (!response.ok) {
      throw new Problem(response.status, json || { title: `HTTP ${response.status} ${response.statusText}` });
    }
    return json;
  }

  // ---- banners ----

  function showError(e) {
    const problem = e instanceof Problem ? e : new Problem(0, { title: "Unexpected error", detail: String(e) });
    $("error-title").textContent = problem.status ? `${problem.status} ${problem.title}` : problem.title;
    $("error-detail").textContent = problem.detail;
    $("error-fields").replaceChildren(...problem.errors.map((f) =>
      el("li", {}, `${text(f && f.field)}: ${text(f && (f.problem || f.message))}`)));
    $("error").hidden = false;
    $("notice").hidden = true;
  }

  function notice(message) {
    $("notice").textContent = message;
    $("notice").hidden = false;
  }

  function clearBanners() {
    $("error").hidden = true;
    $("notice").hidden = true;
  }

  /** Runs a user action: clears old banners, shows its error if it fails. */
  async function act(action) {
    clearBanners();
    try {
      await action();
    } catch (e) {
      showError(e);
    }
  }

  // ---- signing in ----

  async function signIn(key) {
    sessionStorage.setItem(KEY, key);
    try {
      // A key the API does not know is refused here (401, shown as the problem); a client key signs in to its own view.
      state.role = await probeRole();
    } catch (e) {
      sessionStorage.removeItem(KEY);
      throw e;
    }
    $("key").value = "";
    $("who").textContent = `signed in as ${state.role}`;
    $("session").hidden = false;
    $("view-sign-in").hidden = true;
    $("app").hidden = false;
    document.body.dataset.role = state.role;
    // A client sees its own tenant's messages (search, a message's page, cancel): the staff lists are not its to read.
    for (const tab of ["tab-pipeline", "tab-dead", "tab-parked", "tab-webhooks", "tab-suppressions"]) {
      $(tab).hidden = state.role === "client";
    }
    const wanted = window.location.hash; // before show() writes the first view's own
    await loadTenants();
    // Staff open on the pipeline view; a shared link (a search, a message, a list) opens what it names instead.
    if (state.role === "client" || (wanted && wanted !== "#pipeline")) {
      show("search");
      await applyLocation(wanted);
    } else {
      await openPipeline();
    }
  }

  /** Staff pick a tenant from those that hold a client key (any other can still be typed). */
  async function loadTenants() {
    $("tenant-list").replaceChildren();
    if (state.role !== "support" && state.role !== "admin") {
      return;
    }
    try {
      const answer = await api("GET", "/v1/admin/tenants");
      $("tenant-list").replaceChildren(...answer.tenants.map((tenant) => el("option", { value: tenant })));
    } catch (e) {
      showError(e); // the picker is a convenience: signed in all the same
    }
  }

  // ---- the address: a search or a message can be shared as a link ----

  /** Puts the view in the address bar without a new history entry: "#search?to=...", "#message/<id>", "#dead". */
  function setLocation(fragment) {
    const url = `${window.location.pathname}${window.location.search}${fragment ? `#${fragment}` : ""}`;
    window.history.replaceState(null, "", url);
  }

  /** After signing in: open what the address names (a shared search, a message, a list). */
  async function applyLocation(fragment) {
    const hash = decodeURIComponent(fragment.slice(1));
    if (hash.startsWith("message/")) {
      await openMessage(hash.slice("message/".length));
    } else if (/^parked\/[0-9]+$/.test(hash) && !$("tab-parked").hidden) {
      await openParked(Number(hash.slice("parked/".length)));
    } else if (hash.startsWith("search?")) {
      const params = new URLSearchParams(fragment.slice("#search?".length));
      $("search-to").value = params.get("to") || "";
      $("search-reference").value = params.get("reference") || "";
      $("search-status").value = params.get("status") || "";
      // The inputs are datetime-local read as UTC; the address holds the API's form (2026-11-30T00:00:00Z).
      $("search-since").value = (params.get("since") || "").replace(/Z$/, "").slice(0, 16);
      $("search-until").value = (params.get("until") || "").replace(/Z$/, "").slice(0, 16);
      $("search-tenant").value = params.get("tenant") || "";
      await search(false);
    } else if (["pipeline", "dead", "parked", "webhooks", "suppressions"].includes(hash) && !$(`tab-${hash}`).hidden) {
      $(`tab-${hash}`).click();
    }
  }

  /**
   * Support or admin? The API has no "who am I": a re-drive of a message that cannot exist answers 403 to a
   * support key and 404 to an admin key, and changes nothing either way.
   */
  async function probeRole() {
    try {
      await api("POST", `/v1/admin/messages/${NO_MESSAGE}/redrive`);
      return "admin";
    } catch (e) {
      if (e.status === 403) {
        return probeClient();
      }
      if (e.status === 404) {
        return "admin";
      }
      throw e;
    }
  }

  /** Support or a tenant's client key? A cancel of a message that cannot exist: 403 to support, 404 to a client. */
  async function probeClient() {
    try {
      await api("POST", `/v1/messages/${NO_MESSAGE}/cancel`);
      return "client";
    } catch (e) {
      if (e.status === 403) {
        return "support";
      }
      if (e.status === 404) {
        return "client";
      }
      throw e;
    }
  }

  function cancelButton(id) {
    const button = el("button", { type: "button", "data-test": "cancel", "data-id": id }, "Cancel");
    button.addEventListener("click", () => act(() => cancel(id, button)));
    return button;
  }

  async function cancel(id, button) {
    button.disabled = true;
    try {
      const answer = await api("POST", `/v1/messages/${encodeURIComponent(id)}/cancel`);
      notice(`Message ${id} is ${text(answer && answer.status)}.`);
      button.replaceWith(el("span", { class: "done", "data-test": "cancelled" }, "cancelled"));
    } finally {
      button.disabled = false;
    }
    if (state.openId === id) {
      await loadMessage();
    }
  }

  function signOut() {
    sessionStorage.removeItem(KEY);
    stopFollowing();
    stopPipeline();
    state.pipeline.data = null;
    state.role = null;
    state.openId = null;
    state.search = { params: null, cursor: null };
    setLocation("");
    $("tenant-list").replaceChildren();
    delete document.body.dataset.role;
    for (const id of ["pipeline-stage-rows", "pipeline-gateway-rows", "pipeline-tenant-rows", "pipeline-health-rows", "search-rows", "dead-rows", "parked-rows", "webhooks-rows", "message-fields", "message-actions", "timeline",
      "suppressions-rows", "suppression-changes"]) {
      $(id).replaceChildren();
    }
    $("search-form").reset();
    $("suppressions-form").reset();
    state.suppressions = { tenant: null, cursor: null };
    $("search-results").hidden = true;
    for (const id of ["search-more", "dead-more", "parked-more", "webhooks-more", "search-empty", "dead-empty", "parked-empty",
      "webhooks-empty",
      "suppressions-more", "suppressions-empty", "suppressions-results", "suppression-history", "suppress-form"]) {
      $(id).hidden = true;
    }
    clearBanners();
    $("session").hidden = true;
    $("app").hidden = true;
    $("view-sign-in").hidden = false;
    $("key").focus();
  }

  // ---- views ----

  function show(view) {
    state.view = view;
    if (view !== "pipeline") {
      stopPipeline();
    }
    if (view !== "message") {
      state.listView = view;
      stopFollowing();
      state.openId = null;
      setLocation(view === "search" ? (state.search.params ? `search?${state.search.params}` : "") : view);
    }
    for (const name of ["pipeline", "search", "dead", "parked", "webhooks", "suppressions", "message"]) {
      $(`view-${name}`).hidden = name !== view;
    }
    for (const tab of document.querySelectorAll("nav button")) {
      tab.setAttribute("aria-selected", String(tab.dataset.view === view));
      tab.tabIndex = tab.dataset.view === view || (view === "message" && tab.dataset.view === state.listView) ? 0 : -1;
    }
  }

  function openLink(id) {
    return el("button", { type: "button", class: "link", "data-test": "open", "data-id": id,
      onclick: () => act(() => openMessage(id)) }, id);
  }

  function statusBadge(status) {
    return el("span", { class: `status status-${String(status).toLowerCase()}`, "data-test": "status" }, text(status));
  }

  /** A mark beside the status of a high-priority message; nothing for a normal one. */
  function priorityBadge(priority) {
    return priority ? el("span", { class: `priority priority-${String(priority).toLowerCase()}`, "data-test": "priority" },
      String(priority)) : null;
  }

  function messageRow(m, test, extra) {
    return el("tr", { "data-test": test, "data-id": m.id, "data-status": m.status },
      el("td", {}, openLink(m.id)),
      el("td", {}, statusBadge(m.status), priorityBadge(m.priority)),
      el("td", {}, text(m.to)),
      el("td", {}, text(m.reference)),
      el("td", {}, text(m.tenant)),
      el("td", { class: "number" }, text(m.attempts)),
      el("td", {}, m.acceptedAt ? timeElement(m.acceptedAt) : text(m.acceptedAt)),
      el("td", {}, m.updatedAt ? timeElement(m.updatedAt) : text(m.updatedAt)),
      extra || []);
  }

  // ---- search ----

  /** A datetime-local value read as UTC, in the RFC 3339 form the API takes. */
  function utc(value) {
    if (!value) {
      return null;
    }
    return `${value.length === 16 ? `${value}:00` : value}Z`;
  }

  function searchParams() {
    const params = new URLSearchParams();
    const add = (name, value) => {
      if (value !== null && value.trim() !== "") {
        params.set(name, value.trim());
      }
    };
    add("to", $("search-to").value);
    add("reference", $("search-reference").value);
    add("status", $("search-status").value);
    add("since", utc($("search-since").value) || "");
    add("until", utc($("search-until").value) || "");
    add("tenant", $("search-tenant").value);
    return params;
  }

  async function search(more) {
    const params = new URLSearchParams(more ? state.search.params : searchParams());
    if (!more) {
      state.search.params = params.toString();
      setLocation(`search?${state.search.params}`);
    }
    params.set("limit", String(PAGE_SIZE));
    if (more) {
      params.set("cursor", state.search.cursor);
    }
    const page = await api("GET", `/v1/messages?${params}`);
    const rows = page.items.map((m) => messageRow(m, "result-row"));
    if (more) {
      $("search-rows").append(...rows);
    } else {
      $("search-rows").replaceChildren(...rows);
    }
    state.search.cursor = page.nextCursor;
    $("search-more").hidden = !page.nextCursor;
    $("search-results").hidden = $("search-rows").children.length === 0;
    $("search-empty").hidden = $("search-rows").children.length > 0;
  }

  // ---- dead ----

  async function loadDead(more) {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (more) {
      params.set("cursor", state.dead.cursor);
    }
    const page = await api("GET", `/v1/admin/dead?${params}`);
    const rows = page.items.map((m) => messageRow(m, "dead-row", [
      el("td", { class: "error-text" }, text(m.lastError)),
      el("td", {}, state.role === "admin" ? redriveButton(m.id) : []),
    ]));
    if (more) {
      $("dead-rows").append(...rows);
    } else {
      $("dead-rows").replaceChildren(...rows);
    }
    state.dead.cursor = page.nextCursor;
    $("dead-more").hidden = !page.nextCursor;
    $("dead-empty").hidden = $("dead-rows").children.length > 0;
  }

  function redriveButton(id) {
    const button = el("button", { type: "button", "data-test": "redrive", "data-id": id }, "Re-drive");
    button.addEventListener("click", () => act(() => redrive(id, button)));
    return button;
  }

  async function redrive(id, button) {
    button.disabled = true;
    try {
      const answer = await api("POST", `/v1/admin/messages/${encodeURIComponent(id)}/redrive`);
      notice(`Message ${id} re-driven (attempt ${text(answer && answer.attempt)}).`);
      button.replaceWith(el("span", { class: "done", "data-test": "redriven" }, "re-driven"));
    } finally {
      button.disabled = false;
    }
    if (state.openId === id) {
      await loadMessage();
    }
  }

  // ---- suppression list ----

  /** The query of the tenant whose list is shown (staff always name one: API.md). */
  function suppressionQuery(extra) {
    const params = new URLSearchParams({ tenant: state.suppressions.tenant, ...(extra || {}) });
    return params.toString();
  }

  async function loadSuppressions(more) {
    if (!state.suppressions.tenant) {
      return;
    }
    const extra = { limit: String(PAGE_SIZE) };
    if (more) {
      extra.cursor = state.suppressions.cursor;
    }
    const page = await api("GET", `/v1/suppressions?${suppressionQuery(extra)}`);
    const rows = page.items.map(suppressionRow);
    if (more) {
      $("suppressions-rows").append(...rows);
    } else {
      $("suppressions-rows").replaceChildren(...rows);
    }
    state.suppressions.cursor = page.nextCursor;
    $("suppressions-results").hidden = false;
    $("suppressions-more").hidden = !page.nextCursor;
    $("suppressions-empty").hidden = $("suppressions-rows").children.length > 0;
    // API.md: only client and admin keys change a list; support reads it.
    $("suppress-form").hidden = state.role !== "admin";
  }

  function suppressionRow(entry) {
    const actions = el("td", {},
      el("button", { type: "button", "data-test": "suppression-history",
        onclick: () => act(() => loadSuppressionChanges(entry.recipient)) }, "History"));
    if (state.role === "admin") {
      const why = el("input", { type: "text", "data-test": "unsuppress-reason", placeholder: "why (optional)", maxlength: 500,
      "aria-label": "why it is removed (optional)" });
      const remove = el("button", { type: "button", "data-test": "unsuppress" }, "Remove");
      remove.addEventListener("click", () => act(async () => {
        remove.disabled = true;
        try {
          const reason = why.value.trim();
          await api("DELETE", `/v1/suppressions/${encodeURIComponent(entry.recipient)}?${
            suppressionQuery(reason ? { reason } : {})}`);
        } finally {
          remove.disabled = false;
        }
        notice(`${entry.recipient} removed from ${state.suppressions.tenant}'s suppression list.`);
        await loadSuppressions(false);
        await loadSuppressionChanges(entry.recipient);
      }));
      actions.append(" ", why, " ", remove);
    }
    return el("tr", { "data-test": "suppression-row", "data-id": entry.recipient },
      el("td", {}, entry.recipient),
      el("td", { "data-test": "suppression-reason" }, text(entry.reason)),
      el("td", {}, text(entry.since)),
      el("td", { "data-test": "suppression-actor" }, text(entry.actor)),
      actions);
  }

  async function suppress() {
    const recipient = $("suppress-recipient").value.trim();
    const reason = $("suppress-reason").value;
    const entry = await api("PUT", `/v1/suppressions/${encodeURIComponent(recipient)}?${suppressionQuery()}`, { reason });
    notice(`${entry.recipient} is on ${state.suppressions.tenant}'s suppression list: its messages are rejected, never sent.`);
    $("suppress-recipient").value = "";
    $("suppress-reason").value = "";
    await loadSuppressions(false);
    await loadSuppressionChanges(entry.recipient);
  }

  async function loadSuppressionChanges(recipient) {
    const page = await api("GET", `/v1/suppressions/${encodeURIComponent(recipient)}/changes?${
      suppressionQuery({ limit: "500" })}`);
    $("suppression-history-recipient").textContent = recipient;
    $("suppression-changes").replaceChildren(...page.items.map((c) =>
      el("li", { "data-test": "suppression-change" },
        `${text(c.at)} ${c.action} by ${text(c.actor)}${c.reason ? `: ${c.reason}` : ""}`)));
    $("suppression-history").hidden = false;
  }

  // ---- parked ----

  /**
   * {@code from}: a parked row's id to start the list at (a link from a RESOLVED event): the list is newest first and
   * its cursor is "ids below", so it starts at that row, resolved ones included.
   */
  async function loadParked(more, from) {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if ($("parked-all").checked) {
      params.set("all", "true");
    }
    if (more) {
      params.set("cursor", state.parked.cursor);
    } else if (from !== undefined) {
      params.set("cursor", String(from + 1));
    }
    const page = await api("GET", `/v1/admin/parked?${params}`);
    const rows = page.items.map(parkedRow);
    if (more) {
      $("parked-rows").append(...rows);
    } else {
      $("parked-rows").replaceChildren(...rows);
    }
    state.parked.cursor = page.nextCursor;
    $("parked-more").hidden = !page.nextCursor;
    $("parked-empty").hidden = $("parked-rows").children.length > 0;
    $("parked-newest").hidden = from === undefined;
  }

  /** The parked list from one row on, that row marked and focused: where a RESOLVED event's link leads. */
  async function openParked(id) {
    $("parked-all").checked = true;
    show("parked");
    setLocation(`parked/${id}`);
    await loadParked(false, id);
    const row = document.querySelector(`#parked-rows tr[data-id="${id}"]`);
    if (row) {
      row.classList.add("marked");
      row.tabIndex = -1;
      row.focus();
    } else {
      notice(`Parked input #${id} is not in the list.`);
    }
  }

  // ---- dead webhook deliveries ----

  async function loadWebhooks(more) {
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (more) {
      params.set("cursor", state.webhooks.cursor);
    }
    const page = await api("GET", `/v1/admin/webhooks/dead?${params}`);
    const rows = page.items.map((d) => el("tr", { "data-test": "webhook-row", "data-id": d.eventId },
      el("td", {}, openLink(d.messageId)),
      el("td", { class: "number" }, text(d.seq)),
      el("td", {}, statusBadge(d.status)),
      el("td", {}, text(d.tenant)),
      el("td", { class: "number" }, text(d.attempts)),
      el("td", { class: "error-text", "data-test": "webhook-outcome" }, text(d.lastOutcome)),
      el("td", {}, text(d.deadAt)),
      el("td", {}, state.role === "admin" ? webhookRedriveButton(d.eventId) : [])));
    if (more) {
      $("webhooks-rows").append(...rows);
    } else {
      $("webhooks-rows").replaceChildren(...rows);
    }
    state.webhooks.cursor = page.nextCursor;
    $("webhooks-more").hidden = !page.nextCursor;
    $("webhooks-empty").hidden = $("webhooks-rows").children.length > 0;
  }

  function webhookRedriveButton(eventId) {
    const button = el("button", { type: "button", "data-test": "webhook-redrive", "data-id": eventId }, "Re-drive");
    button.addEventListener("click", () => act(async () => {
      button.disabled = true;
      try {
        await api("POST", `/v1/admin/webhooks/${encodeURIComponent(eventId)}/redrive`);
        notice(`Webhook delivery ${eventId} owed again.`);
        button.replaceWith(el("span", { class: "done", "data-test": "webhook-redriven" }, "owed again"));
      } finally {
        button.disabled = false;
      }
    }));
    return button;
  }

  function parkedRow(p) {
    const body = p.body !== undefined && p.body !== null
      ? el("pre", { "data-test": "parked-body" }, p.body)
      : el("pre", { "data-test": "parked-body", class: "base64", title: "not UTF-8: base64" }, text(p.bodyBase64));
    const resolution = el("td", { "data-test": "parked-resolution" });
    if (p.resolution) {
      resolution.append(p.resolution);
    } else if (state.role === "admin") {
      resolution.append(resolveForm(p, resolution));
    } else {
      resolution.append("unresolved");
    }
    return el("tr", { "data-test": "parked-row", "data-id": p.id },
      el("td", { class: "number" }, text(p.id)),
      el("td", {}, text(p.parkedAt)),
      el("td", {}, text(p.gateway)),
      el("td", { "data-test": "parked-reason" }, text(p.reason)),
      el("td", {}, p.messageId ? openLink(p.messageId) : "not matched"),
      el("td", {}, body),
      resolution);
  }

  function resolveForm(p, cell) {
    const status = el("select", { "data-test": "resolve-status", "aria-label": "status to apply" },
      ["DELIVERED", "UNDELIVERED", "UNKNOWN"].map((s) => el("option", {}, s)));
    const messageId = p.messageId ? null
      : el("input", { type: "text", "data-test": "resolve-message", placeholder: "message id", spellcheck: "false",
        "aria-label": "the message it is about" });
    const note = el("input", { type: "text", "data-test": "resolve-note", placeholder: "note", "aria-label": "note" });
    const resolve = (body, button) => act(async () => {
      button.disabled = true;
      try {
        const noteText = note.value.trim();
        if (noteText) {
          body.note = noteText;
        }
        await api("POST", `/v1/admin/parked/${encodeURIComponent(p.id)}/resolve`, body);
      } finally {
        button.disabled = false;
      }
      notice(`Parked input ${p.id} resolved: ${body.action}.`);
      cell.replaceChildren(el("span", { class: "done" }, body.action === "apply" ? `apply ${body.status}` : "discard"));
    });
    const apply = el("button", { type: "button", "data-test": "resolve-apply" }, "Apply");
    apply.addEventListener("click", () => {
      const body = { action: "apply", status: status.value };
      if (messageId && messageId.value.trim()) {
        body.messageId = messageId.value.trim();
      }
      resolve(body, apply);
    });
    const discard = el("button", { type: "button", "data-test": "resolve-discard" }, "Discard");
    discard.addEventListener("click", () => resolve({ action: "discard" }, discard));
    return el("div", { class: "resolve" }, status, messageId, apply, note, discard);
  }

  // ---- one message ----

  async function openMessage(id) {
    stopFollowing();
    state.openId = id;
    setLocation(`message/${encodeURIComponent(id)}`);
    $("message-id").textContent = id;
    $("message-fields").replaceChildren();
    $("message-actions").replaceChildren();
    $("timeline").replaceChildren();
    $("lifebar").replaceChildren();
    show("message");
    $("message-heading").focus();
    await loadMessage();
  }

  async function loadMessage() {
    const id = state.openId;
    stopFollowing();
    const path = `/v1/messages/${encodeURIComponent(id)}`;
    // The status first, then the history: read in that order, the timeline holds at least every event that led
    // to the status shown (read in parallel, a SENT could show above a timeline without its PROVIDER_ACCEPTED).
    const message = await api("GET", path);
    const history = await api("GET", `${path}/events`);
    if (state.openId !== id) {
      return;
    }
    $("message-fields").replaceChildren(...FIELDS.filter((name) => name !== "priority" || message.priority).flatMap((name) => [
      el("dt", {}, name),
      el("dd", { "data-field": name, id: name === "status" ? "message-status" : null },
        name === "status" ? statusBadge(message.status)
          : TIMES.has(name) && message[name] ? timeElement(message[name]) : text(message[name])),
    ]));
    const actions = [];
    if (state.role === "admin" && REDRIVABLE.has(message.status)) {
      actions.push(redriveButton(id));
    }
    // API.md: a cancel is taken only before a worker claims the message; the service decides (409 otherwise).
    if ((state.role === "admin" || state.role === "client") && CANCELLABLE.has(message.status)) {
      actions.push(cancelButton(id));
    }
    $("message-actions").replaceChildren(...actions);
    $("timeline").replaceChildren(...historyItems(history.events));
    $("lifebar").replaceChildren(...lifebar(history.events));
    if (MOVING.has(message.status)) {
      state.follow = setTimeout(() => {
        state.follow = null;
        loadMessage().catch(showError);
      }, FOLLOW_MS);
    }
  }

  function stopFollowing() {
    if (state.follow !== null) {
      clearTimeout(state.follow);
      state.follow = null;
    }
  }

  /** One event of the history; a COMPACTED entry lists the events that compaction folded into it. */
  function eventItem(e, folded, previous) {
    const data = e.data && typeof e.data === "object" ? e.data : null;
    const item = el("li", { "data-test": "event", "data-type": e.type, "data-seq": e.seq,
      "data-folded": folded ? "true" : null, class: folded ? "event folded" : "event" },
      el("div", { class: "event-head" },
        el("span", { class: "seq" }, `#${text(e.seq)}`),
        el("span", { class: "type" }, text(e.type)),
        timeElement(e.at),
        el("span", { class: "since", "data-test": "since" }, since(previous, e)),
        el("span", { class: "actor" }, text(e.actor))),
      el("p", { class: "sentence", "data-test": "sentence" }, sentence(e, data, previous)));
    if (e.type === "RESOLVED" && data && data.parkedId !== undefined && state.role !== "client") {
      const parkedId = Number(data.parkedId);
      item.append(el("p", {}, el("button", { type: "button", class: "small", "data-test": "open-parked",
        "data-id": String(parkedId), onclick: () => act(() => openParked(parkedId)) }, `Open parked input #${parkedId}`)));
    }
    if (e.type === "COMPACTED" && data && Array.isArray(data.events)) {
      item.append(el("ol", { class: "folded-events" },
        data.events.map((inner, i) => eventItem(inner, true, i > 0 ? data.events[i - 1] : previous))));
    } else if (data && Object.keys(data).length > 0) {
      item.append(el("details", { class: "raw" }, el("summary", {}, "data"),
        el("pre", { class: "data" }, JSON.stringify(data, null, 2))));
    }
    return item;
  }

  /** The history as a list: each event with the one before it, for the time between them. */
  function historyItems(events) {
    return events.map((e, i) => eventItem(e, false, i > 0 ? events[i - 1] : null));
  }

  /**
   * The whole life as one bar: a segment per step, as wide as the time the message spent in it (at least a sliver, so
   * a step of milliseconds beside one of hours stays visible), named on hover and for screen readers.
   */
  function lifebar(events) {
    const times = events.map((e) => millis(e.at));
    if (events.length < 2 || times.some((t) => t === null)) {
      return [];
    }
    const total = Math.max(1, times[times.length - 1] - times[0]);
    const segments = [];
    for (let i = 1; i < events.length; i++) {
      const spent = Math.max(0, times[i] - times[i - 1]);
      const label = `${events[i - 1].type} to ${events[i].type}: ${duration(spent)}`;
      const segment = el("span", { class: `segment ${events[i - 1].type.toLowerCase()}`, "data-test": "segment",
        title: label, "aria-label": label, role: "img" });
      // Through the CSSOM: the page's Content-Security-Policy (style-src 'self') refuses style attributes.
      segment.style.flexGrow = String(Math.max(spent / total, 0.02));
      segments.push(segment);
    }
    return [el("div", { class: "bar" }, segments),
      el("p", { class: "hint", "data-test": "life" }, `${events.length} events over ${duration(total)}`)];
  }

  /** A time in the browser's zone, UTC on hover. */
  function timeElement(at) {
    const when = at ? new Date(at) : null;
    if (!when || Number.isNaN(when.getTime())) {
      return el("time", {}, text(at));
    }
    return el("time", { datetime: at, title: `${at} (UTC)` }, when.toLocaleString());
  }

  function millis(at) {
    const t = at ? new Date(at).getTime() : NaN;
    return Number.isNaN(t) ? null : t;
  }

  /** How long a span of milliseconds is, in the largest unit that keeps it readable. */
  function duration(ms) {
    if (ms < 1000) {
      return `${Math.round(ms)} ms`;
    }
    if (ms < 60_000) {
      return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
    }
    if (ms < 3_600_000) {
      return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
    }
    if (ms < 86_400_000) {
      return `${Math.floor(ms / 3_600_000)} h ${Math.round((ms % 3_600_000) / 60_000)} min`;
    }
    return `${Math.floor(ms / 86_400_000)} d ${Math.round((ms % 86_400_000) / 3_600_000)} h`;
  }

  function since(previous, e) {
    const a = previous ? millis(previous.at) : null;
    const b = millis(e.at);
    return a === null || b === null ? "" : `+${duration(Math.max(0, b - a))}`;
  }

  /** The time between this event and the one before, said in words ("273 ms after the claim"). */
  function after(previous, e) {
    const gap = since(previous, e);
    return gap ? `, ${gap.slice(1)} after the ${PHASE[previous.type] || "step before"}` : "";
  }

  const PHASE = {
    ACCEPTED: "acceptance", SCHEDULED: "scheduling", PUBLISHED: "hand-over to the queue", CLAIMED: "claim",
    PROVIDER_ACCEPTED: "provider's acceptance", ATTEMPT_FAILED: "failed attempt", REDRIVEN: "re-drive",
    RECEIPT: "receipt before", OUTCOME_UNKNOWN: "unknown outcome", RESOLVED: "resolution", COMPACTED: "compacted events",
  };

  const REDRIVE = {
    RETRY_DUE: "its retry was due",
    PUBLISH_TIMEOUT: "no worker had claimed it by its deadline",
    CLAIM_TIMEOUT: "the worker that claimed it did not finish by its deadline",
    ADMIN: "support re-drove it",
    HANDED_BACK: "a stopping worker handed it back before calling the provider",
    DUE: "its scheduled time came",
  };

  /** One event as a sentence a support person reads; the raw data stays one click away. */
  function sentence(e, d, previous) {
    const v = (name) => (d && d[name] !== undefined && d[name] !== null ? String(d[name]) : null);
    const gap = after(previous, e);
    switch (e.type) {
      case "ACCEPTED":
        return `Accepted for tenant ${text(v("tenant"))}, to go out through ${text(v("gateway"))}.`;
      case "SCHEDULED":
        return `Scheduled: it waits until ${v("sendAt") ? new Date(v("sendAt")).toLocaleString() : "—"} to be sent.`;
      case "PUBLISHED":
        return `Handed to the send queue for attempt ${text(v("attempt"))}${gap}.`;
      case "CLAIMED":
        return `Worker ${text(v("worker"))} took attempt ${text(v("attempt"))}${gap}.`;
      case "PROVIDER_ACCEPTED": {
        const parts = d && d.parts > 1 ? ` (part ${d.part} of ${d.parts})` : "";
        return `Provider ${text(v("gateway"))} accepted it as ${text(v("providerId"))}${parts}${gap}.`;
      }
      case "ATTEMPT_FAILED":
        return `Attempt ${text(v("attempt"))} failed: ${text(v("error"))}${gap}; `
          + (v("nextAttemptAt") ? `next try at ${new Date(v("nextAttemptAt")).toLocaleString()}.` : "no further try.");
      case "REJECTED":
        return `Rejected at the ${text(v("stage"))} stage: ${text(v("reason"))}. It is final and was not charged.`;
      case "REDRIVEN":
        if (v("reason") === "FAILED_OVER") {
          return `Moved to gateway ${text(v("gateway"))}, because the one before certainly did not take it: ${text(v("error"))}.`;
        }
        return `Sent again as attempt ${text(v("attempt"))}: ${REDRIVE[v("reason")] || text(v("reason"))}${gap}.`;
      case "DEAD":
        return `Dead after ${text(v("attempts"))} attempts: ${text(v("reason"))}. Support can re-drive it.`;
      case "RECEIPT": {
        const told = v("source") === "QUERY" ? "learned by asking its status query" : "from a callback";
        const providerTime = v("providerTimestamp") ? new Date(v("providerTimestamp")).toLocaleString() : "—";
        return `Receipt ${text(v("providerStatus"))} (${text(v("kind"))}) from ${text(v("gateway"))}, ${told}; `
          + `provider time ${providerTime}${v("errorCode") ? `, error ${v("errorCode")}` : ""}.`;
      }
      case "OUTCOME_UNKNOWN":
        return `Outcome unknown: ${text(v("reason"))}. Not failed: a later receipt still decides it.`;
      case "RESOLVED":
        return v("action") === "apply"
          ? `Support applied ${text(v("status"))} from parked input #${text(v("parkedId"))}${v("note") ? `: ${v("note")}` : ""}.`
          : `Support discarded parked input #${text(v("parkedId"))}${v("note") ? `: ${v("note")}` : ""}.`;
      case "EXPIRED":
        return "Expired before a worker could send it: never sent, never charged.";
      case "CANCELLED":
        return "Cancelled by the caller before a worker claimed it: never sent, never charged.";
      case "COMPACTED":
        return `Compaction folded ${d && Array.isArray(d.events) ? d.events.length : "its"} older events into one row; they read as before:`;
      default:
        return `${text(e.type)}.`;
    }
  }

  // The wording of one event, for the browser tests that check every type's sentence (read-only, no state).
  // ---- the pipeline view ----

  const THROUGHPUT = [["ACCEPTED", "accepted", "#1f5fa8"], ["PUBLISHED", "published", "#6a3fa0"], ["SENT", "sent", "#2e7d32"],
    ["DELIVERED", "delivered", "#00838f"]];
  const FAILURES = [["SEND_FAILED", "attempt failed", "#b26a00"], ["UNDELIVERED", "undelivered", "#a61b1b"],
    ["UNKNOWN", "unknown", "#7a5500"], ["REJECTED", "rejected", "#ad1457"], ["DEAD", "dead", "#4e342e"],
    ["EXPIRED", "expired", "#5c6670"], ["PARKED", "parked", "#283593"]];
  const LATENCY = [["accept.commit", "accept commit", "#1f5fa8"], ["send.queue.wait", "in the send stream", "#6a3fa0"],
    ["send.provider", "provider call", "#2e7d32"], ["send.accepted.to.sent", "accepted to sent", "#00838f"],
    ["callbacks.record.commit", "callback recorded", "#b26a00"]];
  const GATEWAY_COLUMNS = ["ACCEPTED", "SENT", "DELIVERED", "UNDELIVERED", "UNKNOWN", "REJECTED", "DEAD", "PARKED"];
  const TENANT_COLUMNS = ["ACCEPTED", "SENT", "DELIVERED", "UNDELIVERED", "UNKNOWN", "REJECTED", "DEAD", "EXPIRED"];

  async function openPipeline() {
    show("pipeline");
    await loadPipeline();
    schedulePipeline();
  }

  function schedulePipeline() {
    stopPipeline();
    if (state.view === "pipeline" && $("pipeline-live").checked) {
      state.pipeline.timer = window.setTimeout(async () => {
        state.pipeline.timer = null;
        try {
          await loadPipeline();
        } catch (e) {
          showError(e);
        }
        schedulePipeline();
      }, PIPELINE_MS);
    }
  }

  function stopPipeline() {
    if (state.pipeline.timer !== null) {
      window.clearTimeout(state.pipeline.timer);
      state.pipeline.timer = null;
    }
  }

  async function loadPipeline() {
    const data = await api("GET", "/v1/admin/overview");
    if (state.view !== "pipeline" || !data) {
      return;
    }
    state.pipeline.data = data;
    $("pipeline-updated").replaceChildren("updated ", timeElement(data.at));
    $("pipeline-stage-rows").replaceChildren(...data.stages.map((stage) => el("tr", { "data-test": "stage", "data-stage": stage.name },
      el("th", { scope: "row" }, stage.label),
      el("td", { class: "number", "data-test": "now" }, stage.now === null ? "—"
        : `${stage.approximate ? "≈ " : ""}${stage.now.toLocaleString()}${stage.atLeast ? "+" : ""}`),
      el("td", { class: "number" }, stage.perSecond.toLocaleString(undefined, { maximumFractionDigits: 2 })),
      el("td", { class: "number" }, stage.p50Ms === null ? "—" : stageTime(stage.p50Ms)),
      el("td", { class: "number" }, stage.p99Ms === null ? "—" : stageTime(stage.p99Ms)))));
    $("pipeline-gateway-rows").replaceChildren(...countRows(data.gateways, GATEWAY_COLUMNS, "gateway"));
    $("pipeline-tenant-rows").replaceChildren(...countRows(data.tenants, TENANT_COLUMNS, "tenant"));
    const raised = Object.entries(data.alarms || {}).filter(([, alarm]) => alarm && alarm.raised);
    const failing = data.health.filter((check) => !check.healthy || check.alarm);
    $("pipeline-health-rows").replaceChildren(
      ...data.health.map((check) => el("tr", { "data-test": "check", "data-check": check.name },
        el("th", { scope: "row" }, check.name),
        el("td", { class: check.healthy ? (check.alarm ? "state-alarm" : "state-ok") : "state-bad" },
          check.healthy ? (check.alarm ? "alarm" : "healthy") : "unhealthy"),
        el("td", {}, check.message))),
      ...Object.entries(data.alarms || {}).map(([name, alarm]) => el("tr", { "data-test": "alarm", "data-alarm": name },
        el("th", { scope: "row" }, `alarm: ${name}`),
        el("td", { class: alarm.raised ? "state-alarm" : "state-ok" }, alarm.raised ? "raised" : "quiet"),
        el("td", {}, `${alarm.lastMinute} in the last minute (limit ${alarm.limit})`))));
    const banner = [...failing.map((check) => `${check.name}: ${check.message}`),
      ...raised.map(([name, alarm]) => `alarm ${name}: ${alarm.lastMinute} in the last minute (limit ${alarm.limit})`)];
    $("pipeline-alarm").textContent = banner.join(" · ");
    $("pipeline-alarm").hidden = banner.length === 0;
    drawCharts(data);
  }

  /** A stage's time: tenths of a millisecond below 10 ms (a commit, a queue read), else as durations are shown. */
  function stageTime(ms) {
    return ms < 10 ? `${ms.toFixed(1)} ms` : duration(ms);
  }

  function countRows(counts, columns, test) {
    const names = Object.keys(counts || {});
    if (names.length === 0) {
      return [el("tr", {}, el("td", { colspan: String(columns.length + 1), class: "empty" }, "Nothing in the last hour."))];
    }
    return names.map((name) => el("tr", { "data-test": test, "data-name": name },
      el("th", { scope: "row" }, name),
      ...columns.map((column) => el("td", { class: "number", "data-count": column },
        Number(counts[name][column] || 0).toLocaleString()))));
  }

  /** The minutes on the x axis (seconds, as uPlot takes them), then one series per line. */
  function chartData(data, source, lines) {
    return [data.minuteStarts, ...lines.map(([key]) => (source[key] || data.minuteStarts.map(() => null)))];
  }

  function drawCharts(data) {
    if (typeof window.uPlot !== "function") {
      throw new Problem(0, { title: "The charting library did not load", detail: "/console/vendor/uplot/uPlot.iife.min.js" });
    }
    const charts = [
      ["chart-throughput", chartData(data, data.throughput, THROUGHPUT), THROUGHPUT, "per minute"],
      ["chart-latency", chartData(data, data.latencyP99, LATENCY), LATENCY, "ms"],
      ["chart-failures", chartData(data, data.throughput, FAILURES), FAILURES, "per minute"],
    ];
    for (const [id, series, lines, unit] of charts) {
      const holder = $(id);
      const width = Math.max(280, holder.clientWidth || 320);
      let chart = state.pipeline.charts[id];
      if (!chart) {
        chart = new window.uPlot({
          width,
          height: 200,
          series: [{}, ...lines.map(([, label, stroke]) => ({ label, stroke, width: 1.5, spanGaps: false }))],
          // Hours and minutes in the browser's zone, spaced so the labels never run together.
          axes: [{ space: 80, values: (u, ticks) => ticks.map((t) => new Date(t * 1000).toLocaleTimeString([],
            { hour: "2-digit", minute: "2-digit" })) }, { label: unit, size: 60 }],
          scales: { x: { time: true } },
          legend: { live: false },
        }, series, holder);
        state.pipeline.charts[id] = chart;
      } else {
        if (Math.abs(chart.width - width) > 4) {
          chart.setSize({ width, height: 200 });
        }
        chart.setData(series);
      }
    }
  }

  window.sendlogConsole = Object.freeze({
    sentence: (e) => sentence(e, e && e.data && typeof e.data === "object" ? e.data : null, null),
    /** The pipeline view's last answer and what each chart was given (for tests and for a curious operator). */
    pipeline: () => ({
      data: state.pipeline.data,
      charts: Object.fromEntries(Object.entries(state.pipeline.charts).map(([id, chart]) => [id, chart.data])),
    }),
  });

  // ---- wiring ----

  document.addEventListener("DOMContentLoaded", () => {
    $("sign-in-form").addEventListener("submit", (event) => {
      event.preventDefault();
      act(() => signIn($("key").value.trim()));
    });
    $("sign-out").addEventListener("click", signOut);
    $("error-close").addEventListener("click", () => { $("error").hidden = true; });
    $("tab-pipeline").addEventListener("click", () => act(openPipeline));
    $("pipeline-live").addEventListener("change", () => act(async () => {
      if ($("pipeline-live").checked) {
        await loadPipeline();
      }
      schedulePipeline();
    }));
    $("tab-search").addEventListener("click", () => { clearBanners(); show("search"); });
    $("tab-dead").addEventListener("click", () => act(async () => { show("dead"); await loadDead(false); }));
    $("tab-parked").addEventListener("click", () => act(async () => { show("parked"); await loadParked(false); }));
    $("tab-webhooks").addEventListener("click", () => act(async () => { show("webhooks"); await loadWebhooks(false); }));
    $("webhooks-reload").addEventListener("click", () => act(() => loadWebhooks(false)));
    $("webhooks-more").addEventListener("click", () => act(() => loadWebhooks(true)));
    $("tab-suppressions").addEventListener("click", () => act(async () => {
      show("suppressions");
      await loadSuppressions(false);
    }));
    $("suppressions-form").addEventListener("submit", (event) => {
      event.preventDefault();
      act(async () => {
        state.suppressions.tenant = $("suppressions-tenant").value.trim();
        state.suppressions.cursor = null;
        $("suppression-history").hidden = true;
        await loadSuppressions(false);
      });
    });
    $("suppress-form").addEventListener("submit", (event) => {
      event.preventDefault();
      act(suppress);
    });
    $("suppressions-more").addEventListener("click", () => act(() => loadSuppressions(true)));
    $("search-form").addEventListener("submit", (event) => {
      event.preventDefault();
      act(() => search(false));
    });
    $("search-more").addEventListener("click", () => act(() => search(true)));
    $("dead-reload").addEventListener("click", () => act(() => loadDead(false)));
    $("dead-more").addEventListener("click", () => act(() => loadDead(true)));
    $("parked-reload").addEventListener("click", () => act(() => loadParked(false)));
    $("parked-all").addEventListener("change", () => act(() => loadParked(false)));
    $("parked-more").addEventListener("click", () => act(() => loadParked(true)));
    $("parked-newest").addEventListener("click", () => act(async () => { setLocation("parked"); await loadParked(false); }));
    // The tabs as a tab list: one of them in the Tab order, the arrow keys (and Home, End) move between them.
    document.querySelector("nav").addEventListener("keydown", (event) => {
      const tabs = [...document.querySelectorAll("nav button")].filter((tab) => !tab.hidden);
      const at = tabs.indexOf(document.activeElement);
      const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
      if (at < 0 || to === undefined) {
        return;
      }
      event.preventDefault();
      const next = tabs[(to + tabs.length) % tabs.length];
      next.focus();
      next.click();
    });
    $("message-back").addEventListener("click", () => { clearBanners(); show(state.listView); });
    $("message-refresh").addEventListener("click", () => act(loadMessage));
    $("message-copy").addEventListener("click", async () => {
      const id = state.openId;
      try {
        await navigator.clipboard.writeText(id);
        notice(`Copied ${id}`);
      } catch (e) {
        // No clipboard here (an insecure origin, or permission refused): select it for the user's own copy.
        const range = document.createRange();
        range.selectNodeContents($("message-id"));
        const selection = window.getSelection();
        selection.removeAllRanges();
        selection.addRange(range);
        notice("The id is selected: press Ctrl+C (or ⌘C) to copy it");
      }
    });

    const stored = sessionStorage.getItem(KEY);
    if (stored) {
      act(() => signIn(stored));
    } else {
      $("key").focus();
    }
  });
})();
