// Tern's web app script: small, no framework, no build step. The server writes every page whole
// (it works without this file); this keeps it live and fast: fragments instead of reloads, the
// change feed (server-sent events), the keyboard shortcuts of PLATFORM.md, toasts with Undo, and
// the attachment warnings as dialogs. It never changes a message body: those live in sandboxed
// frames where nothing runs; it only reads their height, to size each frame to its body (issue 39).

// The search box's operator suggestions and error state (issue 36), a module of its own.
import "./search.js";

// Issue 35: the "Add account" form, which the page shows while there is no account.
import "./account.js";

// Issue 36: notifications of new Inbox mail, as the person chose in Settings.
import { notifyNewMail } from "./notifications.js";

const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
// The per-message menus replace their no-script links (app.css).
document.documentElement.classList.add("scripted");
const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

// The app lives under a secret path, the page's <base> (issue 32): its own links are relative to it,
// and an app path the server names ("/mail?…", a form's way back) is put under it here.
const appRoot = new URL(document.baseURI).pathname;
function appURL(url) {
  return typeof url === "string" && url.startsWith("/") && !url.startsWith(appRoot) ? appRoot + url.slice(1) : url;
}

async function fetchText(url, options = {}) {
  const response = await fetch(appURL(url), { credentials: "same-origin", ...options });
  if (!response.ok && response.status !== 204) throw new Error(`${response.status}`);
  return response.status === 204 ? "" : response.text();
}

async function post(url, fields) {
  const body = new URLSearchParams(fields);
  const response = await fetch(appURL(url), {
    method: "POST", credentials: "same-origin", body,
    headers: { "X-CSRF-Token": csrf, "Content-Type": "application/x-www-form-urlencoded" },
  });
  let reply = {};
  try { reply = await response.json(); } catch { reply = { ok: false, error: `The server answered ${response.status}.` }; }
  if (!response.ok && reply.ok === undefined) reply.ok = false;
  return reply;
}

function parse(html) { return new DOMParser().parseFromString(html, "text/html"); }

// ---- Toasts (live region) ----------------------------------------------------------------------
let lastUndo = null;
function toast(text, { action, onAction, seconds = 5, error = false } = {}) {
  const region = $("#toasts");
  if (!region || !text) return;
  const item = document.createElement("div");
  item.className = "toast" + (error ? " error" : "");
  const label = document.createElement("span");
  label.textContent = text;
  item.append(label);
  if (action) {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = action;
    button.addEventListener("click", () => { item.remove(); onAction(); });
    item.append(button);
  }
  if (seconds) {
    if (matchMedia("(prefers-reduced-motion: reduce)").matches) {
      // A plain progress bar stepping once a second instead of a sliding one (NFR-ED-03).
      const bar = document.createElement("progress");
      bar.max = seconds;
      bar.value = seconds;
      bar.setAttribute("aria-hidden", "true");
      item.append(bar);
      const tick = setInterval(() => { bar.value = Math.max(0, bar.value - 1); }, 1000);
      setTimeout(() => clearInterval(tick), seconds * 1000);
    } else {
      const bar = document.createElement("span");
      bar.className = "toast-countdown";
      bar.setAttribute("aria-hidden", "true");
      bar.style.animationDuration = `${seconds}s`;
      item.append(bar);
    }
    setTimeout(() => item.remove(), seconds * 1000);
  }
  region.append(item);
  return item;
}

// ---- Navigation: the page's panes swapped from the server's page ------------------------------
async function navigate(url, { push = true, focus = "auto" } = {}) {
  const since = bodyNewsCount;
  let doc;
  try {
    doc = parse(await fetchText(url));
  } catch {
    toast("Couldn't load that. Check that tern serve is running.", { error: true });
    return;
  }
  for (const id of ["folders-pane", "list-pane", "thread-pane"]) {
    const fresh = doc.getElementById(id), current = document.getElementById(id);
    if (fresh && current) current.replaceWith(fresh);
  }
  document.title = doc.title;
  document.body.dataset.pane = doc.body.dataset.pane;
  const search = $("#search-input"), freshSearch = doc.getElementById("search-input");
  if (search && freshSearch && document.activeElement !== search) search.value = freshSearch.value;
  if (push) history.pushState({}, "", appURL(url));
  afterRender();
  catchUpBodies(since);
  if (focus === "thread") $("#thread-subject")?.focus() ?? $("#conversation h2")?.focus();
  if (focus === "list") ($(".thread-link[aria-current]") ?? $(".thread-link") ?? $("#thread-list"))?.focus();
}

// A thread from the list: only the third pane is fetched and replaced (the list and folders stay),
// so opening a conversation costs one small request (issue 17's click-to-content goal).
async function openConversation(link) {
  const url = link.getAttribute("href");
  const query = new URL(url, document.baseURI).search;
  const since = bodyNewsCount;
  // FR-ED-01 "Loading conversation…", shown only when the answer is slow enough to be seen.
  const slow = setTimeout(() => {
    const state = Object.assign(document.createElement("div"), { className: "thread-state", id: "conversation" });
    state.setAttribute("role", "status");
    state.textContent = "Loading conversation…";
    $("#thread-pane").replaceChildren(state);
    document.body.dataset.pane = "thread";
  }, 150);
  let doc;
  try {
    doc = parse(await fetchText(`fragments/conversation${query}`));
  } catch {
    clearTimeout(slow);
    $("#thread-pane").replaceChildren(parse(`<div class="thread-state" id="conversation" role="alert"><h2 tabindex="-1">Couldn't load this conversation</h2>
      <p><a class="button" href="">Retry</a></p></div>`).body.firstChild);
    const retry = $("#conversation a");
    retry.setAttribute("href", url);
    retry.addEventListener("click", (event) => { event.preventDefault(); openConversation(link); });
    retry.focus();
    return;
  }
  clearTimeout(slow);
  $("#thread-pane").replaceChildren(...doc.body.childNodes);
  for (const current of $$(".thread-link[aria-current]")) current.removeAttribute("aria-current");
  link.setAttribute("aria-current", "true");
  link.closest(".thread-row")?.classList.remove("unread");
  document.body.dataset.pane = "thread";
  const subject = $("#thread-subject")?.textContent;
  if (subject) document.title = `${subject} — Tern`;
  history.pushState({}, "", url);
  afterRender();
  catchUpBodies(since);
  $("#thread-subject")?.focus() ?? $("#conversation h2")?.focus();
}

function currentLocation() { return location.pathname + location.search; }

function listOnlyURL() {
  const params = new URLSearchParams(location.search);
  for (const key of ["thread", "open", "images", "earlier"]) params.delete(key);
  const query = params.toString();
  return "mail" + (query ? `?${query}` : "");
}

window.addEventListener("popstate", () => navigate(currentLocation(), { push: false }));

// ---- After each render: observers ------------------------------------------------------------
function afterRender() {
  initComposer($("#composer"));
  decorateFolders();
  for (const placeholder of $$("[data-assist-summary], [data-assist-replies]")) loadAssist(placeholder);
  observeLoadMore();
}

// Bodies the open conversation was waiting for arrived, or could not be fetched: the change feed
// says so (`body`, `bodiesunavailable`), and the conversation is drawn again with them. One request
// per conversation drawn: the server answers once every body its page lacked is in.
// The feed's news of bodies, newest last (bounded): a conversation whose request crossed them
// learns of them when drawn (`catchUpBodies`).
const bodyNews = [];
let bodyNewsCount = 0;

function noteBodyNews(news) {
  bodyNews.push({ ...news, seq: ++bodyNewsCount });
  if (bodyNews.length > 200) bodyNews.shift();
}

function catchUpBodies(since) {
  const conversation = $("#conversation[data-thread-id]");
  if (!conversation) return;
  for (const news of bodyNews) {
    if (news.seq <= since || news.thread !== conversation.dataset.threadId) continue;
    if (news.unavailable) { refreshBodies(news.thread, { unavailable: true, offline: news.offline }); return; }
    if ($(`[data-body-loading="${CSS.escape(news.email)}"]`, conversation)) { refreshBodies(news.thread); return; }
  }
}

async function refreshBodies(threadId, { unavailable = false, offline = false } = {}) {
  const conversation = $("#conversation[data-thread-id]");
  if (!conversation || conversation.dataset.threadId !== String(threadId)) return;
  if (!$("[data-body-loading]", conversation) || conversation.dataset.bodiesAsked) return;
  conversation.dataset.bodiesAsked = "1";
  const locationURL = new URL(conversation.dataset.location, document.baseURI);
  // Reported unavailable: drawn at once, E-05's banner when the server was out of reach.
  if (unavailable) locationURL.searchParams.set("offline", offline ? "1" : "0");
  try {
    const html = await fetchText(`fragments/bodies${locationURL.search}`);
    if (!html) return;
    const fresh = parse(html).getElementById("conversation");
    const current = document.getElementById("conversation");
    if (fresh && current && current.dataset.threadId === conversation.dataset.threadId) {
      current.replaceWith(fresh);
      afterRender();
    }
  } catch { /* the page keeps its placeholders; reload retries */ }
}

// ---- Message frames sized to their bodies (issue 39) ----------------------------------------------
// A body's frame keeps the app's origin but runs no script (decisions.md "Message frames sized to
// their content"), so its document can be measured from here: the frame takes the height of the
// body's root, and again whenever that changes (images, a quote unfolded, a narrower window). Once
// sized it never scrolls itself (`tern-sized` in body.css). Without script the server's estimate stays.
const frameObservers = new WeakMap();

function fitFrame(frame) {
  let root;
  try { root = frame.contentDocument?.documentElement; } catch { return; }
  if (!root || frame.contentDocument.URL === "about:blank" || !frame.contentDocument.body) return;
  root.classList.add("tern-sized");
  const measure = () => {
    if (!frame.isConnected) { frameObservers.get(frame)?.disconnect(); return; }
    // Measured with the frame at no height, so that what the body sizes by its viewport (`100vh`, a
    // height in percent) cannot hold the frame at the height it had; the margin keeps the page's
    // own layout, and its scroll position, unchanged meanwhile. All in one task: nothing is painted.
    frame.style.marginBottom = `${frame.getBoundingClientRect().height}px`;
    frame.style.height = "0px";
    const content = root.scrollHeight;
    frame.style.height = `${content}px`;
    frame.style.marginBottom = "";
    // The frame's viewport less the document's: a horizontal scrollbar's height, when there is one.
    const scrollbar = Math.max(0, frame.clientHeight - root.clientHeight);
    if (scrollbar) frame.style.height = `${content + scrollbar}px`;
    frame.dataset.fitted = "1";
  };
  measure();
  frameObservers.get(frame)?.disconnect();
  const observer = new ResizeObserver(measure);
  observer.observe(root);
  observer.observe(frame.contentDocument.body);
  frameObservers.set(frame, observer);
}

document.addEventListener("load", (event) => {
  if (event.target instanceof HTMLIFrameElement && event.target.matches(".message-body")) fitFrame(event.target);
}, true);

function fitLoadedFrames() {
  for (const frame of $$("iframe.message-body")) if (frame.contentDocument?.readyState === "complete") fitFrame(frame);
}

// ---- Print (issue 39) -----------------------------------------------------------------------------
// The Print action and Ctrl+P: every message of the page opened first (a collapsed one prints only
// its line), their frames sized, then the browser's dialog; print CSS leaves the conversation only.
async function printConversation() {
  const collapsed = $$("#messages article.message.collapsed");
  await Promise.all(collapsed.map((article) => {
    const toggle = $(".expand-toggle[data-fragment]", article);
    return toggle ? replaceMessage(article, toggle.dataset.fragment, false) : null;
  }));
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && $$("#messages iframe.message-body").some((frame) => !frame.dataset.fitted)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  window.print();
}

document.addEventListener("click", (event) => {
  if (event.target.closest?.("[data-print]")) { event.preventDefault(); printConversation(); }
});

document.addEventListener("keydown", (event) => {
  if (event.key !== "p" || !(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
  if (!$("#conversation[data-thread-id]")) return;
  event.preventDefault();
  printConversation();
});

// ---- Assist (FR-ED-02, FR-COMP-03) ---------------------------------------------------------------
// The summary and the smart replies arrive after the conversation or composer is drawn; when there
// are none (Assist off, the provider slow or failing) the section goes away without a word.
async function loadAssist(placeholder) {
  if (placeholder.dataset.loading) return;
  placeholder.dataset.loading = "1";
  const url = placeholder.dataset.assistSummary ?? placeholder.dataset.assistReplies;
  let section = null;
  try {
    section = parse(await fetchText(url)).body.firstElementChild;
  } catch { /* hidden below */ }
  if (!placeholder.isConnected) return;
  if (!section) { placeholder.remove(); return; }
  placeholder.replaceWith(section);
  const form = section.closest("#composer");
  if (form) {
    for (const chip of $$("[data-suggestion]", section)) chip.addEventListener("click", () => insertSuggestion(form, chip.dataset.suggestion));
  }
}

// AC-U-11: the chosen reply goes above the quote, selected-free and focused, to edit freely.
function insertSuggestion(form, text) {
  const body = $("#compose-body", form);
  const rest = body.value.replace(/^\s*/, "");
  body.value = `${text}\n\n${rest}`;
  body.focus();
  body.setSelectionRange(text.length, text.length);
  body.dispatchEvent(new Event("input", { bubbles: true }));
}

let loadMoreObserver;
// The list's end loads the next page when it scrolls into view: the store's next rows, or once
// they are all shown, older mail from the server (FR-SYNC-01 step 5) until its history is all
// stored (then the server renders no such form). The button stays for keyboard and no-script use.
function observeLoadMore() {
  loadMoreObserver?.disconnect();
  const more = $(".load-more[data-fragment]") ?? $("form[data-older]:not([data-stopped])");
  if (!more || !("IntersectionObserver" in window)) return;
  loadMoreObserver = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    if (more.matches("form")) loadOlder(more); else loadMore(more);
  }, { rootMargin: "200px" });
  loadMoreObserver.observe(more);
}

async function loadMore(link) {
  if (link.dataset.busy) return;
  link.dataset.busy = "1";
  link.textContent = "Loading…";
  try {
    const doc = parse(await fetchText(link.dataset.fragment));
    const rows = doc.querySelector("template[data-rows]");
    $("#thread-list")?.append(...rows.content.children);
    const footer = doc.getElementById("list-footer");
    if (footer) $("#list-footer")?.replaceWith(footer);
    afterRender();
  } catch {
    link.textContent = "Couldn't load more. Try again";
    delete link.dataset.busy;
  }
}

// ---- Clicks ------------------------------------------------------------------------------------
document.addEventListener("click", async (event) => {
  const link = event.target.closest("a");
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  if (link.classList.contains("thread-link")) {
    event.preventDefault();
    await openConversation(link);
  } else if (link.classList.contains("load-more")) {
    event.preventDefault();
    loadMore(link);
  } else if (link.closest("#earlier") && link.dataset.fragment) {
    event.preventDefault();
    showEarlier(link);
  } else if (link.dataset.fragment && link.closest("article.message")) {
    event.preventDefault();
    replaceMessage(link.closest("article.message"), link.dataset.fragment, link.classList.contains("expand-toggle"));
  } else if (link.classList.contains("compose-link") || link.classList.contains("message-compose")) {
    closeMessageMenus();
    event.preventDefault();
    await openComposer(link);
  } else if (link.classList.contains("folder-link") || link.classList.contains("back-button")) {
    event.preventDefault();
    await navigate(link.getAttribute("href"), { focus: "list" });
  }
});

// The composer in the third pane: only its fragment is fetched (the folders and the list stay), as a
// conversation is opened; the address changes so a reload comes back to it.
async function openComposer(link) {
  const url = link.getAttribute("href");
  const query = new URL(url, document.baseURI).searchParams;
  const origin = new URLSearchParams(query);
  for (const name of ["compose", "message", "from", "draft", "server", "suggestion"]) origin.delete(name);
  const fragment = new URLSearchParams();
  for (const name of ["compose", "message", "from", "draft", "server", "suggestion"]) if (query.has(name)) fragment.set(name, query.get(name));
  fragment.set("location", origin.toString());
  let doc;
  try {
    doc = parse(await fetchText(`fragments/composer?${fragment}`));
  } catch {
    await navigate(url, { focus: "none" });
    return;
  }
  $("#thread-pane").replaceChildren(...doc.body.childNodes);
  document.body.dataset.pane = "thread";
  document.title = `${$("#composer-title")?.textContent ?? "Compose"} — Tern`;
  history.pushState({}, "", url);
  afterRender();
}

async function replaceMessage(article, fragment, focusToggle) {
  const url = new URL(fragment, document.baseURI);
  url.searchParams.set("location", new URLSearchParams(location.search).toString());
  try {
    const fresh = parse(await fetchText(url)).querySelector("article.message");
    article.replaceWith(fresh);
    if (focusToggle) $(".expand-toggle", fresh)?.focus();
  } catch {
    toast("Couldn't load this message.", { error: true, action: "Retry", onAction: () => replaceMessage(article, fragment, focusToggle) });
  }
}

// FR-ED-05: older messages on top, the reader's place kept.
async function showEarlier(link) {
  const messages = $("#messages");
  // The pane scrolls in the three-pane layout, the document in the one-pane layout.
  const pane = $("#thread-pane").scrollHeight > $("#thread-pane").clientHeight ? $("#thread-pane") : document.scrollingElement;
  const before = pane.scrollHeight - pane.scrollTop;
  link.textContent = "Loading earlier messages…";
  try {
    const doc = parse(await fetchText(link.dataset.fragment));
    const template = doc.querySelector("template[data-earlier]");
    const nextControl = template.content.querySelector("#earlier");
    nextControl?.remove();
    messages.prepend(...template.content.children);
    if (nextControl) $("#earlier").replaceWith(nextControl); else $("#earlier").remove();
    pane.scrollTop = pane.scrollHeight - before;
  } catch {
    link.textContent = "Couldn't load earlier messages. Retry";
  }
}

// ---- Forms: actions, downloads, older mail -----------------------------------------------------
document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (form.method !== "post") return;
  if (form.classList.contains("action-form")) {
    event.preventDefault();
    await runAction(form);
  } else if (form.classList.contains("download-form")) {
    event.preventDefault();
    await startDownload(form);
  } else if (form.dataset.older !== undefined) {
    event.preventDefault();
    await loadOlder(form, { asked: true });
  }
});

// Older mail from the server. Asked by scrolling, it is announced only when it fails or when it
// ends the folder's history; asked by the button, always. A failure stops the scrolling loads
// until the person asks again.
async function loadOlder(form, { asked = false } = {}) {
  if (form.dataset.busy || (!asked && form.hasAttribute("data-stopped"))) return;
  form.dataset.busy = "1";
  const button = $("button", form);
  button.disabled = true;
  button.textContent = "Loading older mail…";
  const reply = await post(form.action, new FormData(form));
  if (asked || !reply.ok || !/older messages? loaded/.test(reply.toast ?? "")) toast(reply.toast ?? reply.error, { error: !reply.ok });
  const scrolled = $("#list-pane")?.scrollTop ?? 0;
  await navigate(currentLocation(), { push: false, focus: "none" });
  const pane = $("#list-pane");
  if (pane) pane.scrollTop = scrolled;
  const ended = !reply.ok || /can't be loaded|No more messages|^0 older/.test(reply.toast ?? "");
  if (ended) $("form[data-older]")?.setAttribute("data-stopped", "");
}

// The conversation an archive or delete just left for the list (E-11).
let leftThread = null;

async function runAction(form) {
  const action = form.dataset.action;
  const fields = new FormData(form);
  // An action that cannot be undone (Discard) is asked first, in a dialog (issue 34).
  if (form.dataset.confirm) {
    if (!(await confirmDialog(form.dataset.confirm, [], form.querySelector("button")?.textContent ?? "OK"))) return;
    fields.set("confirmed", "1");
  }
  // Issue 36: Move to… and Label as… ask for the folder first.
  if (form.dataset.pickFolder !== undefined && action === "snooze") {
    const until = await pickSnooze();
    if (!until) return;
    fields.set("until", until);
  } else if (form.dataset.pickFolder !== undefined) {
    const to = await pickFolder(action, fields.get("folder"));
    if (!to) return;
    fields.set("to", to);
  }
  const reply = await post(form.action, fields);
  if (!reply.ok) {
    toast(`Couldn't ${actionVerb(action)}. ${reply.error ?? ""}`.trim(), { error: true, action: "Retry", onAction: () => runAction(form) });
    return;
  }
  if (reply.undoToken) {
    lastUndo = reply.undoToken;
    toast(reply.toast, { action: "Undo", seconds: reply.undoSeconds ?? 5, onAction: () => undo(reply.undoToken) });
  } else if (reply.toast) {
    toast(reply.toast);
  }
  // Focus is never lost: a list action moves to the list, a star goes back to its (redrawn) button.
  const article = form.closest("article.message")?.id;
  const inToolbar = Boolean(form.closest(".toolbar"));
  if (reply.navigate) {
    const thread = new URLSearchParams(location.search).get("thread");
    const from = currentLocation();
    await navigate(reply.navigate, { focus: "list" });
    leftThread = thread ? { thread, url: from, list: currentLocation() } : null;
    return;
  }
  await navigate(currentLocation(), { push: false });
  if (article) { $(`#${CSS.escape(article)} .star-form button`)?.focus(); return; }
  if (inToolbar) {
    const twin = { star: "unstar", unstar: "star" }[action] ?? action;
    ($(`.toolbar form[data-action="${twin}"] button`) ?? $("#thread-subject"))?.focus();
  }
}

function actionVerb(action) {
  return { archive: "archive", delete: "delete", move: "move it", label: "label it", snooze: "snooze it", star: "star", unstar: "unstar", unread: "mark unread", trust: "trust this sender",
    "retry sending": "send it", discard: "discard it" }[action] ?? action;
}

async function undo(token) {
  const reply = await post("actions/undo", { token: token ?? "" });
  toast(reply.ok ? reply.toast : reply.error, { error: !reply.ok });
  lastUndo = null;
  // A folder change undone goes back to the folder as it is again (a rename: its old name).
  if (reply.ok && reply.navigate) { await navigate(reply.navigate.replace(/^\//, ""), { focus: "list" }); return; }
  await navigate(currentLocation(), { push: false, focus: "list" });
}

// ---- Folders (issue 36): Move to… / Label as… with type-ahead, drag and drop, folder changes ----

// The folders messages can go to, from the folder pane (each account's, once per name).
function folderChoices(exclude) {
  const names = [];
  for (const link of $$(".folder-link[data-folder-path]")) {
    const path = link.dataset.folderPath;
    if (path !== exclude && !names.includes(path)) names.push(path);
  }
  return names;
}

// A dialog naming the folders, narrowed as the person types; Enter takes the first one shown.
function pickFolder(action, current) {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.setAttribute("aria-labelledby", "pick-folder-title");
    dialog.className = "pick-folder";
    const form = Object.assign(document.createElement("form"), { method: "dialog" });
    const title = Object.assign(document.createElement("h2"), { id: "pick-folder-title", textContent: action === "label" ? "Label as" : "Move to" });
    const label = Object.assign(document.createElement("label"), { htmlFor: "pick-folder-input", textContent: "Folder name" });
    const input = Object.assign(document.createElement("input"), { id: "pick-folder-input", type: "text", autocomplete: "off" });
    input.setAttribute("aria-describedby", "pick-folder-count");
    const count = Object.assign(document.createElement("p"), { id: "pick-folder-count", className: "visually-hidden" });
    count.setAttribute("aria-live", "polite");
    const list = Object.assign(document.createElement("ul"), { className: "folder-choices" });
    list.setAttribute("aria-label", "Folders");
    let answer = null;
    for (const name of folderChoices(action === "move" ? current : null)) {
      const item = document.createElement("li");
      const choice = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: name });
      choice.addEventListener("click", () => { answer = name; dialog.close(); });
      item.append(choice);
      list.append(item);
    }
    const shown = () => $$("li", list).filter((item) => !item.hidden);
    const narrow = () => {
      const typed = input.value.trim().toLowerCase();
      for (const item of $$("li", list)) item.hidden = typed !== "" && !item.textContent.toLowerCase().includes(typed);
      const n = shown().length;
      count.textContent = n === 1 ? "1 folder" : `${n} folders`;
    };
    input.addEventListener("input", narrow);
    input.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown") { event.preventDefault(); $("button", shown()[0] ?? list)?.focus(); }
    });
    list.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      event.preventDefault();
      const buttons = shown().map((item) => $("button", item));
      const index = buttons.indexOf(document.activeElement) + (event.key === "ArrowDown" ? 1 : -1);
      (index < 0 ? input : buttons[Math.min(index, buttons.length - 1)])?.focus();
    });
    form.addEventListener("submit", () => {
      const typed = input.value.trim();
      const exact = shown().find((item) => item.textContent === typed);
      answer = (exact ?? shown()[0])?.textContent ?? null;
    });
    const actions = Object.assign(document.createElement("div"), { className: "dialog-actions" });
    const cancel = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Cancel" });
    cancel.addEventListener("click", () => dialog.close());
    actions.append(cancel);
    form.append(title, label, input, count, list, actions);
    dialog.append(form);
    document.body.append(dialog);
    dialog.addEventListener("close", () => { dialog.remove(); resolve(answer); });
    narrow();
    dialog.showModal();
    input.focus();
  });
}

// Snooze (issue 36): the common choices, or a date and time picked; the answer is what the server
// reads (a WhenExpression: "today 18:00", "tomorrow 08:00", "mon 08:00", or the picker's ISO time).
function pickSnooze() {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.setAttribute("aria-labelledby", "snooze-title");
    const title = Object.assign(document.createElement("h2"), { id: "snooze-title", textContent: "Snooze until" });
    const list = Object.assign(document.createElement("ul"), { className: "snooze-choices" });
    list.setAttribute("aria-label", "Snooze choices");
    let answer = null;
    const hour = new Date().getHours();
    const choices = [
      [hour < 17 ? "Later today (18:00)" : "Later today (in 3 hours)", hour < 17 ? "today 18:00" : "in 3h"],
      ["Tomorrow (08:00)", "tomorrow 08:00"],
      ["Next week (Monday 08:00)", "mon 08:00"],
    ];
    for (const [label, value] of choices) {
      const item = document.createElement("li");
      const choice = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: label });
      choice.addEventListener("click", () => { answer = value; dialog.close(); });
      item.append(choice);
      list.append(item);
    }
    const form = Object.assign(document.createElement("form"), { method: "dialog", className: "snooze-pick" });
    const label = Object.assign(document.createElement("label"), { htmlFor: "snooze-at", textContent: "Date and time" });
    const input = Object.assign(document.createElement("input"), { id: "snooze-at", type: "datetime-local", required: true });
    const pad = (n) => String(n).padStart(2, "0");
    const now = new Date();
    input.min = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}`;
    const ok = Object.assign(document.createElement("button"), { type: "submit", className: "button primary", textContent: "Snooze" });
    form.addEventListener("submit", () => { answer = input.value || null; });
    const field = document.createElement("div");
    field.append(label, input);
    form.append(field, ok);
    const actions = Object.assign(document.createElement("div"), { className: "dialog-actions" });
    const cancel = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Cancel" });
    cancel.addEventListener("click", () => dialog.close());
    actions.append(cancel);
    dialog.append(title, list, form, actions);
    document.body.append(dialog);
    dialog.addEventListener("close", () => { dialog.remove(); resolve(answer); });
    dialog.showModal();
    $("button", list).focus();
  });
}

// A name typed into a dialog (a new folder, a folder's new name); null when cancelled.
function askFolderName(question, initial = "") {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.setAttribute("aria-labelledby", "folder-name-title");
    const form = Object.assign(document.createElement("form"), { method: "dialog" });
    const title = Object.assign(document.createElement("h2"), { id: "folder-name-title", textContent: question });
    const label = Object.assign(document.createElement("label"), { htmlFor: "folder-name-input", textContent: "Folder name" });
    const input = Object.assign(document.createElement("input"), { id: "folder-name-input", type: "text", value: initial, required: true });
    const actions = Object.assign(document.createElement("div"), { className: "dialog-actions" });
    const cancel = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Cancel" });
    const ok = Object.assign(document.createElement("button"), { type: "submit", className: "button primary", textContent: initial ? "Rename" : "Create" });
    actions.append(cancel, ok);
    form.append(title, label, input, actions);
    dialog.append(form);
    document.body.append(dialog);
    let answer = null;
    form.addEventListener("submit", () => { answer = input.value.trim() || null; });
    cancel.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => { dialog.remove(); resolve(answer); });
    dialog.showModal();
    input.focus();
    input.select();
  });
}

async function changeFolder(action, fields, { navigateTo } = {}) {
  const reply = await post(`actions/${action}`, fields);
  if (!reply.ok) { toast(`Couldn't change the folder. ${reply.error ?? ""}`.trim(), { error: true }); return; }
  // Issue 36: made on the server when the undo window has passed, undone like archive.
  lastUndo = reply.undoToken ?? null;
  if (reply.undoToken) toast(reply.toast, { action: "Undo", seconds: reply.undoSeconds ?? 5, onAction: () => undo(reply.undoToken) });
  else toast(reply.toast);
  await navigate(navigateTo ?? currentLocation(), { push: Boolean(navigateTo), focus: "list" });
}

// The folder list's own buttons: New folder per account; Rename and Delete for the person's own
// folder being viewed, in the list's header.
function decorateFolders() {
  for (const button of $$("[data-new-folder]")) button.hidden = false;
  const params = new URLSearchParams(location.search);
  const path = params.get("folder"), account = params.get("account");
  const header = $(".list-header");
  if (!path || !header || $(".folder-actions", header)) return;
  const own = $$(".folder-link[data-own-folder]").some((link) => link.dataset.folderPath === path && link.dataset.account === account);
  if (!own) return;
  const actions = Object.assign(document.createElement("div"), { className: "folder-actions" });
  const rename = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Rename folder" });
  const remove = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Delete folder" });
  rename.addEventListener("click", async () => {
    const to = await askFolderName(`Rename ${path}`, path);
    if (!to || to === path) return;
    params.set("folder", to);
    params.delete("thread");
    // Percent-encoded (the server reads a "+" as itself, not as a space).
    const query = [...params].map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join("&");
    await changeFolder("folder-rename", { account, path, to }, { navigateTo: `mail?${query}` });
  });
  remove.addEventListener("click", async () => {
    // Issue 36: the count the person agrees to lose goes with the request; the server side refuses another.
    const link = $$(".folder-link[data-own-folder]").find((item) => item.dataset.folderPath === path && item.dataset.account === account);
    const messages = Number(link?.dataset.messages ?? 0);
    const held = messages === 0 ? "It is empty." : `It holds ${messages} message${messages === 1 ? "" : "s"}, which the server deletes with it (on Gmail, only the label).`;
    if (!(await confirmDialog(`Delete the folder ${path}?`, [held], "Delete folder"))) return;
    await changeFolder("folder-delete", { account, path, messages: String(messages) }, { navigateTo: "mail" });
  });
  actions.append(rename, remove);
  header.append(actions);
}

document.addEventListener("click", async (event) => {
  const button = event.target.closest?.("[data-new-folder]");
  if (!button) return;
  const path = await askFolderName("New folder");
  if (path) await changeFolder("folder-create", { account: button.dataset.newFolder, path });
});

// Drag a conversation from the list onto a folder: moved there, with Undo as Move to… gives it.
const threadDragType = "application/x-tern-thread";
document.addEventListener("dragstart", (event) => {
  const row = event.target.closest?.(".thread-row[data-thread-id]");
  if (!row || !event.dataTransfer) return;
  event.dataTransfer.setData(threadDragType, row.dataset.threadId);
  event.dataTransfer.effectAllowed = "move";
});
document.addEventListener("dragover", (event) => {
  const target = event.target.closest?.(".folder-link[data-folder-path]");
  if (!target || !event.dataTransfer?.types.includes(threadDragType)) return;
  event.preventDefault();
  event.dataTransfer.dropEffect = "move";
  target.classList.add("drop-target");
});
document.addEventListener("dragleave", (event) => event.target.closest?.(".folder-link")?.classList.remove("drop-target"));
document.addEventListener("drop", async (event) => {
  const target = event.target.closest?.(".folder-link[data-folder-path]");
  const thread = event.dataTransfer?.getData(threadDragType);
  if (!target || !thread) return;
  event.preventDefault();
  target.classList.remove("drop-target");
  const here = new URLSearchParams(location.search);
  const fields = { thread, to: target.dataset.folderPath, folder: here.get("folder") ?? "", return: "/" + listOnlyURL() };
  const reply = await post("actions/move", fields);
  if (!reply.ok) { toast(`Couldn't move it. ${reply.error ?? ""}`.trim(), { error: true }); return; }
  lastUndo = reply.undoToken ?? null;
  if (reply.undoToken) toast(reply.toast, { action: "Undo", seconds: reply.undoSeconds ?? 5, onAction: () => undo(reply.undoToken) });
  else toast(reply.toast);
  await navigate(here.get("thread") === thread ? listOnlyURL() : currentLocation(), { push: false, focus: "list" });
});

// FR-ED-03: the warnings first (stacked when both apply), then the download with progress.
async function startDownload(form) {
  const warnings = (form.dataset.warnings ?? "").split("\n").filter(Boolean);
  if (warnings.length && !(await confirmDownload(warnings))) return;
  const fields = new FormData(form);
  fields.set("confirmed", "1");
  const reply = await post(form.action, fields);
  if (!reply.ok) { toast(reply.error, { error: true }); return; }
  const item = form.closest(".attachment");
  showProgress(item, 0, null);
}

function confirmDownload(warnings) {
  return confirmDialog("Download this attachment?", warnings, "Download");
}

// A modal question with Cancel (focused first, and Escape) and one confirming button.
function confirmDialog(question, texts, confirmLabel) {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.setAttribute("aria-labelledby", "confirm-dialog-title");
    const title = document.createElement("h2");
    title.id = "confirm-dialog-title";
    title.textContent = question;
    dialog.append(title);
    for (const text of texts) { const p = document.createElement("p"); p.textContent = text; dialog.append(p); }
    const actions = document.createElement("div");
    actions.className = "dialog-actions";
    const cancel = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Cancel" });
    const download = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: confirmLabel });
    actions.append(cancel, download);
    dialog.append(actions);
    document.body.append(dialog);
    const finish = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
    cancel.addEventListener("click", () => finish(false));
    download.addEventListener("click", () => finish(true));
    dialog.addEventListener("cancel", () => finish(false));
    dialog.showModal();
    cancel.focus();
  });
}

function showProgress(item, received, total) {
  const slot = item && $(".attachment-progress", item);
  if (!slot) return;
  let bar = $("progress", slot);
  if (!bar) {
    bar = document.createElement("progress");
    bar.setAttribute("aria-label", `Downloading ${$(".attachment-name", item)?.textContent ?? "attachment"}`);
    const cancel = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Cancel" });
    cancel.addEventListener("click", () => post(`attachments/${item.dataset.attachmentId}/cancel`, {}));
    slot.replaceChildren(bar, cancel);
  }
  if (total) { bar.max = total; bar.value = received; } else { bar.removeAttribute("value"); }
}

// ---- Live updates (server-sent events) ---------------------------------------------------------
let refreshTimer;
function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(async () => {
    // Folders and the list's first page again; an open thread and the reader's place stay.
    let doc;
    try { doc = parse(await fetchText(currentLocation())); } catch { return; }
    const folders = doc.getElementById("folders-pane");
    if (folders) $("#folders-pane")?.replaceWith(folders);
    const list = $("#thread-list");
    const scrolled = list && $("#list-pane").scrollTop > 0 && $$(".thread-row", list).length > 50;
    if (!scrolled) {
      // Focus stays on the same row (a conversation's or a draft's) when the list is redrawn under it.
      const focused = $("#list-pane").contains(document.activeElement) ? document.activeElement.closest("[data-row]")?.dataset.row : null;
      const fresh = doc.getElementById("list-pane");
      if (fresh) { $("#list-pane")?.replaceWith(fresh); observeLoadMore(); }
      if (focused) ($(`.thread-row[data-row="${CSS.escape(focused)}"] a`) ?? $(".thread-link") ?? $("#thread-list"))?.focus();
    }
    decorateFolders();
  }, 300);
}

let headersRedraw = null;

// Issue 34, ED§7-4: a downloaded attachment dragged out of the page lands on the desktop or in a file
// manager as the file, with its name and type (Chromium's `DownloadURL`: "type:name:absolute URL").
document.addEventListener("dragstart", (event) => {
  const link = event.target.closest?.("a[data-drag-name]");
  if (!link || !event.dataTransfer) return;
  const url = new URL(link.getAttribute("href"), document.baseURI).href;
  event.dataTransfer.setData("DownloadURL", `${link.dataset.dragType}:${link.dataset.dragName}:${url}`);
  event.dataTransfer.effectAllowed = "copy";
});

function connectEvents() {
  if (!("EventSource" in window)) return;
  const events = new EventSource("events");
  const data = (event) => { try { return JSON.parse(event.data); } catch { return {}; } };
  // What arrived before the stream was open (a page drawn with bodies still loading) is asked for once.
  events.addEventListener("open", () => {
    // A first sync about to start or running when the page was drawn may have stored more (or finished) before the
    // stream opened (issue 35).
    if ($(".sync-state[data-first-sync], .sync-progress:not([hidden])")) refreshSoon();
    const conversation = $("#conversation[data-thread-id]");
    if (conversation) refreshBodies(conversation.dataset.threadId);
    for (const emailId of sendWatchers.keys()) checkSendStatus(emailId);
  });
  events.addEventListener("sendstate", (event) => { const info = data(event); sendOutcome(info.email ?? "", info.state, info.error); });
  events.addEventListener("send", (event) => { const info = data(event); sendOutcome(info.email ?? "", info.state, info.error); });
  events.addEventListener("body", (event) => {
    const info = data(event);
    noteBodyNews({ email: info.email ?? "", thread: info.thread ?? "" });
    if ($(`[data-body-loading="${CSS.escape(info.email ?? "")}"]`)) refreshBodies(info.thread);
  });
  events.addEventListener("bodiesunavailable", (event) => {
    const info = data(event);
    noteBodyNews({ thread: info.thread ?? "", unavailable: true, offline: info.offline === "1" });
    refreshBodies(info.thread, { unavailable: true, offline: info.offline === "1" });
  });
  events.addEventListener("threads", refreshSoon);
  events.addEventListener("drafts", () => { if (currentLocation().includes("view=drafts")) refreshSoon(); });
  events.addEventListener("draftconflict", (event) => draftChangedOnServer(data(event).draft));
  events.addEventListener("newmail", (event) => { toast(data(event).text); refreshSoon(); });
  events.addEventListener("newmessages", (event) => notifyNewMail(data(event), (url) => location.assign(new URL(url, document.baseURI))));
  events.addEventListener("sync", (event) => {
    const info = data(event);
    for (const line of $$(`.sync-state[data-account]`)) {
      if (line.dataset.account !== info.account) continue;
      line.className = `sync-state sync-${info.kind}`;
      line.lastChild.textContent = info.text;
      const icon = $(".icon", line);
      if (icon) icon.className = `icon icon-sync-${info.kind}`;
    }
    if (info.kind !== "busy") for (const bar of $$(`.sync-progress[data-account="${CSS.escape(info.account ?? "")}"]`)) bar.hidden = true;
  });
  // Issue 35: the first sync's headers fetched of the total; the list fills as batches land.
  events.addEventListener("headers", (event) => {
    const info = data(event);
    for (const line of $$(`.sync-state[data-account="${CSS.escape(info.account ?? "")}"]`)) {
      line.className = "sync-state sync-busy";
      line.lastChild.textContent = info.text;
    }
    for (const bar of $$(`.sync-progress[data-account="${CSS.escape(info.account ?? "")}"]`)) {
      bar.max = Math.max(Number(info.total) || 1, 1);
      bar.value = Number(info.fetched) || 0;
      bar.hidden = false;
    }
    // At most every half second, so that a stream of batches does not keep postponing the redraw.
    if (!headersRedraw) headersRedraw = setTimeout(() => { headersRedraw = null; refreshSoon(); }, 500);
  });
  events.addEventListener("accounts", refreshSoon);
  events.addEventListener("failed", async (event) => {
    const info = data(event);
    // E-11: the conversation left for the list (archive, delete) comes back when the server refuses, if the
    // person is still on that list.
    if (leftThread && info.thread && info.thread === leftThread.thread && currentLocation() === leftThread.list) {
      const back = leftThread.url;
      leftThread = null;
      await navigate(back, { focus: "thread" });
    }
    toast(info.text, { error: true, seconds: 0, action: "Retry", onAction: async () => {
      const reply = await post("actions/retry", { change: info.change });
      if (!reply.ok) toast(reply.error, { error: true });
      refreshSoon();
    } });
    refreshSoon();
  });
  // Issue 36: a folder change the server refused is no longer shown; say why.
  events.addEventListener("folderfailed", (event) => {
    toast(data(event).text, { error: true, seconds: 0 });
    refreshSoon();
  });
  events.addEventListener("attachment", async (event) => {
    const info = data(event);
    const item = $(`.attachment[data-attachment-id="${CSS.escape(info.attachment)}"]`);
    if (!item) return;
    if (info.phase === "downloading" || info.phase === "retrying") showProgress(item, Number(info.received), Number(info.total) || null);
    else if (info.phase === "finished") {
      const article = item.closest("article.message");
      const toggle = article && $(".expand-toggle", article);
      if (article && toggle) {
        const url = new URL(toggle.dataset.fragment, document.baseURI);
        url.searchParams.set("expanded", "1");
        replaceMessage(article, url.pathname + url.search, false);
      }
      const composerButton = $("[data-download-attachment]", item);
      if (composerButton) {
        const meta = $(".attachment-meta", item);
        meta.textContent = meta.textContent.replace(", not downloaded yet", ", downloaded");
        composerButton.remove();
        $(".attachment-progress", item).textContent = "";
      }
      toast(`${$(".attachment-name", item)?.textContent ?? "Attachment"} downloaded.`);
    } else if (info.phase === "failed") {
      $(".attachment-progress", item).textContent = "";
      toast(`Couldn't download ${$(".attachment-name", item)?.textContent ?? "the attachment"}.`, { error: true, seconds: 0, action: "Retry",
        onAction: () => {
          const form = $(".download-form", item);
          if (form) startDownload(form);
          else { const button = $("[data-download-attachment]", item); if (button) downloadForComposer(button); }
        } });
    } else if (info.phase === "cancelled") {
      $(".attachment-progress", item).textContent = "Download cancelled.";
    }
  });
}

// ---- Keyboard (PLATFORM.md: Gmail's shortcuts) -------------------------------------------------
function rows() { return $$(".thread-row"); }
function selectedRow() { return $(".thread-row.keyboard-selected") ?? $(".thread-link[aria-current]")?.closest(".thread-row"); }

function moveSelection(step) {
  const all = rows();
  if (!all.length) return;
  const current = selectedRow();
  let index = current ? all.indexOf(current) + step : (step > 0 ? 0 : all.length - 1);
  index = Math.max(0, Math.min(all.length - 1, index));
  current?.classList.remove("keyboard-selected");
  all[index].classList.add("keyboard-selected");
  const link = $(".thread-link", all[index]);
  link.focus();
  if (document.body.dataset.pane === "thread") openConversation(link);
}

function clickToolbar(action) {
  const button = $(`.toolbar form[data-action="${action}"] button`);
  if (button) { button.closest("form").requestSubmit(); return true; }
  return false;
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
  const target = event.target;
  if (target.closest("input, textarea, select, [contenteditable], dialog")) {
    if (event.key === "Escape" && target.id === "search-input") target.blur();
    return;
  }
  const key = event.key;
  const handled = (() => {
    switch (key) {
      case "j": moveSelection(1); return true;
      case "k": moveSelection(-1); return true;
      case "o": case "Enter": {
        if (key === "o" && target.classList?.contains("thread-link")) { openConversation(target); return true; }
        if (target.closest("a, button, summary")) return false;
        const row = selectedRow();
        if (row) { openConversation($(".thread-link", row)); return true; }
        return false;
      }
      case "u": if (document.body.dataset.pane === "thread" || $("#conversation[data-thread-id]")) { navigate(listOnlyURL(), { focus: "list" }); return true; } return false;
      case "U": return clickToolbar("unread");
      case "e": return clickToolbar("archive");
      case "#": return clickToolbar("delete");
      case "v": return clickToolbar("move");
      case "l": return clickToolbar("label");
      case "b": return clickToolbar("snooze");
      case "s": return clickToolbar("star") || clickToolbar("unstar");
      case "z": if (lastUndo) { undo(lastUndo); return true; } return false;
      case "c": case "r": case "a": case "f": {
        const mode = { c: "new", r: "reply", a: "replyAll", f: "forward" }[key];
        const link = $(`.compose-link[data-compose="${mode}"]`);
        if (link) { link.click(); return true; }
        return false;
      }
      case "/": $("#search-input")?.focus(); return true;
      case "?": $("#shortcuts-dialog")?.showModal(); return true;
      default: return false;
    }
  })();
  if (handled) event.preventDefault();
});

$("#shortcuts-open")?.addEventListener("click", () => $("#shortcuts-dialog")?.showModal());

// ---- A message's "More actions" menu (NFR-ED-03, ED§7-3) ---------------------------------------
// The menu button pattern: Enter, Space or a click opens it on its first item; arrows, Home and End
// move; Escape or Tab closes it and focus goes back to the button. The context-menu key
// (Shift+F10) and a right click on a message open that message's menu.
function closeMessageMenus({ except = null, focusButton = false } = {}) {
  for (const menu of $$(".message-menu:not([hidden])")) {
    if (menu === except) continue;
    menu.hidden = true;
    const button = document.getElementById(menu.getAttribute("aria-labelledby") ?? "") ?? $(`[aria-controls="${CSS.escape(menu.id)}"]`);
    button?.setAttribute("aria-expanded", "false");
    if (focusButton) button?.focus();
  }
}

function openMessageMenu(article, focus = "first") {
  const button = $(".message-menu-button", article);
  const menu = button && document.getElementById(button.getAttribute("aria-controls"));
  if (!menu) return false;
  closeMessageMenus({ except: menu });
  menu.hidden = false;
  button.setAttribute("aria-expanded", "true");
  const items = $$('[role="menuitem"]', menu);
  (focus === "last" ? items.at(-1) : items[0])?.focus();
  return true;
}

document.addEventListener("click", (event) => {
  const button = event.target.closest(".message-menu-button");
  if (button) {
    if (button.getAttribute("aria-expanded") === "true") closeMessageMenus(); else openMessageMenu(button.closest("article.message"));
    return;
  }
  const item = event.target.closest('.message-menu [role="menuitem"]');
  if (item && item.tagName === "BUTTON") { runMessageMenuItem(item); return; }
  if (!event.target.closest(".message-menu")) closeMessageMenus();
});

document.addEventListener("contextmenu", (event) => {
  const article = event.target.closest("article.message");
  if (!article || event.target.closest("input, textarea") || !$(".message-menu-button", article)) return;
  event.preventDefault();
  openMessageMenu(article);
});

document.addEventListener("keydown", (event) => {
  const article = event.target.closest?.("article.message");
  if (!article) return;
  const button = $(".message-menu-button", article);
  if ((event.key === "ContextMenu" || (event.shiftKey && event.key === "F10")) && button) {
    event.preventDefault();
    openMessageMenu(article);
    return;
  }
  if (event.target === button && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
    event.preventDefault();
    openMessageMenu(article, event.key === "ArrowUp" ? "last" : "first");
    return;
  }
  const menu = event.target.closest(".message-menu");
  if (!menu) return;
  const items = $$('[role="menuitem"]', menu);
  const index = items.indexOf(event.target);
  const move = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1 }[event.key];
  if (move !== undefined) {
    event.preventDefault();
    items[(move + items.length) % items.length].focus();
  } else if (event.key === "Escape") {
    event.preventDefault();
    event.stopPropagation();
    closeMessageMenus({ focusButton: true });
  } else if (event.key === "Tab") {
    closeMessageMenus();
  } else if (event.key === " " && event.target.tagName === "A") {
    event.preventDefault();
    event.target.click();
  }
}, true);

async function runMessageMenuItem(item) {
  const article = item.closest("article.message");
  closeMessageMenus({ focusButton: true });
  if (item.dataset.copyText) {
    try {
      const { text } = JSON.parse(await fetchText(item.dataset.copyText));
      await navigator.clipboard.writeText(text);
      toast("Text copied.");
    } catch {
      toast("Couldn't copy the text: the message isn't downloaded yet.", { error: true });
    }
    return;
  }
  const form = document.getElementById(item.dataset.submits ?? "");
  if (!form) return;
  if (form.dataset.fromHere !== undefined) {
    // This message and every later one the page shows (earlier pages may have been loaded above).
    for (const input of $$('input[name="message"]', form)) input.remove();
    const articles = $$("article.message[data-message-id]");
    for (const later of articles.slice(articles.indexOf(article))) {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = "message";
      input.value = later.dataset.messageId;
      form.append(input);
    }
  }
  form.requestSubmit();
}

// ---- Search as you type (FTS5) ------------------------------------------------------------------
let searchTimer;
$("#search-input")?.addEventListener("input", (event) => {
  clearTimeout(searchTimer);
  const text = event.target.value;
  searchTimer = setTimeout(() => {
    const url = text.trim() ? `mail?q=${encodeURIComponent(text)}` : "mail";
    navigate(url, { push: false, focus: "none" }).then(() => history.replaceState({}, "", url));
  }, 250);
});
$(".search")?.addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("#search-input").value;
  navigate(text.trim() ? `mail?q=${encodeURIComponent(text)}` : "mail", { focus: "list" });
});

// ---- Offline -----------------------------------------------------------------------------------
function showOnline() { const banner = $("#offline-banner"); if (banner) banner.hidden = navigator.onLine; }
window.addEventListener("online", showOnline);
window.addEventListener("offline", showOnline);


// ---- The composer (issue 18): recipient tokens with autocomplete, Markdown toolbar, attachments,
// checks before Send, the undo countdown. The form keeps working without this code. -------------
function splitAddresses(text) {
  const parts = [];
  let current = "", quoted = false, angle = 0;
  for (const char of text) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && char === "<") angle++;
    else if (!quoted && char === ">") angle = Math.max(0, angle - 1);
    if ((char === "," || char === ";") && !quoted && angle === 0) { if (current.trim()) parts.push(current.trim()); current = ""; }
    else current += char;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

/** The text with the `-- ` block of signature `old` replaced by that of `next` (as the server's SignatureBlock does). */
function swapSignature(text, old, next) {
  const block = (signature) => `-- \n${signature}`;
  if (old === next || (next && text.includes(block(next)))) return text;
  const at = old ? text.indexOf(block(old)) : -1;
  if (at >= 0) {
    if (next) return text.slice(0, at) + block(next) + text.slice(at + block(old).length);
    // The blank line before the block goes with it.
    const start = text.slice(0, at).replace(/\n{1,2}$/, "").length;
    return text.slice(0, start) + text.slice(at + block(old).length);
  }
  if (!next) return text;
  const lines = text.split("\n");
  const quote = lines.findIndex((line) => line.startsWith("---------- Forwarded message ----------") || (line.startsWith("On ") && line.endsWith(" wrote:")));
  if (quote < 0) return `${text.replace(/\n+$/, "")}\n\n${block(next)}`;
  return `${lines.slice(0, quote).join("\n").replace(/\n+$/, "")}\n\n${block(next)}\n\n${lines.slice(quote).join("\n")}`;
}

let pendingCheck;
function initComposer(form) {
  if (!form || form.dataset.ready) return;
  form.dataset.ready = "1";
  for (const field of $$(".recipient-field", form)) initRecipientField(form, field);
  for (const button of $$("[data-reveal]", form)) {
    button.addEventListener("click", () => {
      const field = $(`.recipient-field[data-field="${button.dataset.reveal}"]`, form);
      field.hidden = false;
      button.remove();
      $(".token-input", field)?.focus();
    });
  }
  const body = $("#compose-body", form);
  for (const button of $$("[data-format]", form)) button.addEventListener("click", () => formatSelection(body, button.dataset.format));
  body.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.altKey) return;
    const format = { b: "bold", i: "italic", k: "link" }[event.key.toLowerCase()];
    if (format) { event.preventDefault(); formatSelection(body, format); }
  });
  body.addEventListener("input", () => { updateBodySize(form); scheduleCheck(form); });
  // CO01-16 (issue 34): an image pasted or dropped into the text goes into the message at the caret;
  // any other file dropped there is attached, as in the attachments' drop zone.
  body.addEventListener("paste", (event) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (!files.length) return;
    event.preventDefault();
    insertFiles(form, body, files);
  });
  body.addEventListener("dragover", (event) => { if (event.dataTransfer?.types?.includes("Files")) event.preventDefault(); });
  body.addEventListener("drop", (event) => {
    const files = [...(event.dataTransfer?.files ?? [])];
    if (!files.length) return;
    event.preventDefault();
    insertFiles(form, body, files);
  });
  $("#compose-subject", form).addEventListener("input", () => scheduleCheck(form));
  // Issue 35: the From picker swaps the signature in the text (each option carries its identity's).
  const from = $("#compose-from", form);
  if (from) {
    let shown = from.selectedOptions[0]?.dataset.signature ?? "";
    from.addEventListener("change", () => {
      const next = from.selectedOptions[0]?.dataset.signature ?? "";
      // The text above the signature does not move, so neither does the caret in it.
      const caret = body.selectionStart;
      body.value = swapSignature(body.value, shown, next);
      body.setSelectionRange(Math.min(caret, body.value.length), Math.min(caret, body.value.length));
      shown = next;
      updateBodySize(form);
    });
  }
  form.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") { event.preventDefault(); form.requestSubmit($("#send-button", form)); }
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "s") { event.preventDefault(); saveDraft(form).then((ok) => { if (ok) toast("Draft saved"); }); }
  });
  const files = $("#compose-files", form);
  files.addEventListener("change", () => { uploadFiles(form, files.files); files.value = ""; });
  const zone = $(".composer-attachments", form);
  zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("dragging"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => { event.preventDefault(); zone.classList.remove("dragging"); uploadFiles(form, event.dataTransfer.files); });
  form.addEventListener("click", (event) => {
    const download = event.target.closest("[data-download-attachment]");
    if (download) downloadForComposer(download);
    const remove = event.target.closest("[data-remove-attachment]");
    if (remove) { const item = remove.closest("li"); if (item.dataset.contentId) removeImageReferences(body, item.dataset.contentId); const next = item.nextElementSibling ?? $("#compose-files", form); item.remove(); next?.focus?.(); scheduleCheck(form); }
  });
  // FR-COMP-01 "On dismiss": content is saved as a draft ("Draft saved"); an empty composer leaves nothing.
  $("[data-discard]", form)?.addEventListener("click", async (event) => {
    event.preventDefault();
    clearInterval(form.autosave);
    const saved = composerHasContent(form) ? await saveDraft(form) : false;
    await navigate(form.elements.return.value, { focus: "thread" });
    if (saved) toast("Draft saved");
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (event.submitter?.id === "save-draft") { if (await saveDraft(form)) toast("Draft saved"); }
    else if (event.submitter?.id === "delete-draft") deleteDraft(form);
    else if (event.submitter?.dataset.schedule !== undefined) scheduleComposer(form, event.submitter);
    else sendComposer(form);
  });
  // Autosave: at the first meaningful edit, then every 30 seconds while the content changes.
  form.lastSaved = draftState(form);
  form.addEventListener("input", () => noteEdit(form));
  form.addEventListener("change", () => noteEdit(form));
  startAutosave(form);
  updateBodySize(form);
  scheduleCheck(form);
  if (form.dataset.focus === "body") { body.focus(); body.setSelectionRange(0, 0); body.scrollTop = 0; }
  else $(".recipient-field:not([hidden]) .token-input", form)?.focus();
}

// A forwarded attachment not local yet, fetched now; progress, the end and a failure (with Retry) come on the event stream.
async function downloadForComposer(button) {
  const item = button.closest(".attachment");
  const reply = await post(`attachments/${button.dataset.downloadAttachment}/download`, { confirmed: "1" });
  if (!reply.ok) {
    toast(reply.error ?? "Couldn't download the attachment.", { error: true, seconds: 0, action: "Retry", onAction: () => downloadForComposer(button) });
    return;
  }
  showProgress(item, 0, null);
}

function composerHasContent(form) {
  return $$(".token", form).length > 0 || form.elements.subject.value.trim() || form.elements.body.value.trim() || $$("#compose-attachments li", form).length > 0;
}

// ---- Drafts (FR-COMP-01 "Draft Auto-Save Lifecycle") -------------------------------------------------
function draftState(form) {
  const fields = new FormData(form);
  for (const name of ["csrf", "confirmed", "return", "draft", "at"]) fields.delete(name);
  return new URLSearchParams(fields).toString();
}

function startAutosave(form) {
  clearInterval(form.autosave);
  form.autosave = setInterval(() => {
    if (!form.isConnected) clearInterval(form.autosave);
    else if (draftState(form) !== form.lastSaved) saveDraft(form);
  }, (Number(form.dataset.autosaveSeconds) || 30) * 1000);
}

function noteEdit(form) {
  if (form.elements.draft.value || form.firstSave || !composerHasContent(form)) return;
  // The first meaningful edit: saved once typing pauses.
  clearTimeout(form.firstSaveTimer);
  form.firstSaveTimer = setTimeout(() => { form.firstSave = true; saveDraft(form); }, 1500);
}

async function saveDraft(form) {
  if (form.saving) return form.saving;
  const status = $("#draft-status", form);
  const state = draftState(form);
  if (form.elements.draft.value && state === form.lastSaved) { status.textContent = "Draft saved"; return true; }
  status.textContent = "Saving…";
  form.saving = (async () => {
    const reply = await post("compose/draft", new FormData(form));
    if (!reply.ok) { status.textContent = "Couldn't save the draft; it will be tried again."; return false; }
    if (!reply.draftId) { status.textContent = ""; return false; }
    adoptDraftId(form, reply.draftId);
    for (const [upload, name] of Object.entries(reply.uploadsKept ?? {})) {
      const input = $(`input[name="upload"][value="${CSS.escape(upload)}"]`, form);
      if (input) Object.assign(input, { name: "draftfile", value: name });
    }
    form.lastSaved = draftState(form);
    status.textContent = "Draft saved";
    return true;
  })();
  try { return await form.saving; } catch { status.textContent = "Couldn't save the draft; it will be tried again."; return false; }
  finally { form.saving = null; }
}

function adoptDraftId(form, draftId) {
  form.elements.draft.value = draftId;
  $("#delete-draft", form).hidden = false;
  if (!form.isConnected) return;
  const url = new URL(location.href);
  for (const name of ["compose", "message", "from", "draft", "server", "suggestion"]) url.searchParams.delete(name);
  url.searchParams.set("compose", "draft");
  url.searchParams.set("draft", draftId);
  history.replaceState({}, "", url.pathname + url.search);
}

async function deleteDraft(form) {
  if (!(await ask("Delete draft?", "Delete", "Keep Editing"))) return;
  clearInterval(form.autosave);
  const reply = await post("compose/discard", new FormData(form));
  if (!reply.ok) { toast(reply.error ?? "Couldn't delete the draft.", { error: true }); return; }
  await navigate(form.elements.return.value, { focus: "thread" });
  toast("Draft deleted");
}

// FR-COMP-01 "Conflict": the server's version replaced the open draft.
async function draftChangedOnServer(draftId) {
  const form = $("#composer");
  if (!form || form.elements.draft.value !== String(draftId)) return;
  const reload = await ask("This draft was updated on another device. Reload?", "Reload", "Keep Local");
  await post("compose/keep-local", { draft: draftId });
  if (reload) { clearInterval(form.autosave); await navigate(currentLocation(), { push: false, focus: "none" }); }
}

function initRecipientField(form, field) {
  const text = $(".recipient-text", field), label = $("label", field);
  const name = field.dataset.field;
  text.type = "hidden";
  const inputId = text.id;
  text.removeAttribute("id");
  const box = document.createElement("div");
  box.className = "token-box";
  const tokens = document.createElement("ul");
  tokens.className = "tokens";
  tokens.setAttribute("aria-label", `${label.textContent} recipients`);
  const input = document.createElement("input");
  Object.assign(input, { id: inputId, type: "text", className: "token-input", autocomplete: "off", spellcheck: false });
  input.setAttribute("role", "combobox");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-expanded", "false");
  input.setAttribute("aria-controls", `${inputId}-listbox`);
  const list = document.createElement("ul");
  list.id = `${inputId}-listbox`;
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", `Suggestions for ${label.textContent}`);
  list.hidden = true;
  box.append(tokens, input, list);
  field.append(box);
  box.addEventListener("click", (event) => { if (event.target === box || event.target === tokens) input.focus(); });

  const sync = () => { text.value = $$(".token", tokens).map((token) => token.dataset.address).join(", "); scheduleCheck(form); };
  const addToken = (address) => {
    const value = address.trim();
    if (!value) return;
    const item = document.createElement("li");
    item.className = "token";
    item.dataset.address = value;
    const label = document.createElement("span");
    label.className = "token-text";
    label.textContent = value;
    const problem = document.createElement("span");
    problem.className = "token-problem";
    const remove = Object.assign(document.createElement("button"), { type: "button", className: "token-remove", textContent: "×" });
    remove.setAttribute("aria-label", `Remove ${value}`);
    remove.addEventListener("click", () => { item.remove(); sync(); input.focus(); });
    item.append(label, problem, remove);
    tokens.append(item);
  };
  for (const address of splitAddresses(text.value)) addToken(address);

  let options = [], active = -1;
  const close = () => { list.hidden = true; input.setAttribute("aria-expanded", "false"); input.removeAttribute("aria-activedescendant"); active = -1; };
  const highlight = (index) => {
    active = index;
    $$('[role="option"]', list).forEach((option, i) => option.setAttribute("aria-selected", String(i === index)));
    if (index >= 0) input.setAttribute("aria-activedescendant", `${list.id}-${index}`); else input.removeAttribute("aria-activedescendant");
  };
  const commit = (value) => { addToken(value); input.value = ""; close(); sync(); };
  const suggest = async () => {
    const query = input.value.trim();
    if (!query) { close(); return; }
    let answer;
    try { answer = await (await fetch(`contacts?q=${encodeURIComponent(query)}`, { credentials: "same-origin" })).json(); } catch { answer = []; }
    // Asked on every keystroke (a local query of about a millisecond): an answer for text no longer typed is dropped.
    if (input.value.trim() !== query) return;
    options = answer;
    list.replaceChildren(...options.map((option, index) => {
      const item = document.createElement("li");
      item.id = `${list.id}-${index}`;
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", "false");
      const shown = option.name ? `${option.name} <${option.address}>` : option.address;
      item.textContent = shown;
      item.addEventListener("mousedown", (event) => { event.preventDefault(); commit(option.name ? `${quoteName(option.name)} <${option.address}>` : option.address); });
      return item;
    }));
    list.hidden = options.length === 0;
    input.setAttribute("aria-expanded", String(options.length > 0));
    highlight(-1);
  };
  input.addEventListener("input", () => {
    if (/[,;]/.test(input.value)) { for (const part of splitAddresses(input.value)) addToken(part); input.value = ""; close(); sync(); return; }
    suggest();  // NFR-COMP-02: the list follows each keystroke
  });
  input.addEventListener("keydown", (event) => {
    const open = !list.hidden;
    if (event.key === "ArrowDown" && open) { event.preventDefault(); highlight((active + 1) % options.length); }
    else if (event.key === "ArrowUp" && open) { event.preventDefault(); highlight(active <= 0 ? options.length - 1 : active - 1); }
    else if (event.key === "Escape" && open) { event.preventDefault(); event.stopPropagation(); close(); }
    else if ((event.key === "Enter" || event.key === "Tab") && (active >= 0 || input.value.trim())) {
      if (event.key === "Enter" || active >= 0 || input.value.trim()) {
        if (event.key === "Enter" || active >= 0) event.preventDefault();
        const option = options[active];
        commit(option ? (option.name ? `${quoteName(option.name)} <${option.address}>` : option.address) : input.value);
      }
    } else if (event.key === "Backspace" && !input.value) {
      const last = $$(".token", tokens).pop();
      if (last) { last.remove(); sync(); }
    }
  });
  input.addEventListener("blur", () => { if (input.value.trim()) commit(input.value); else close(); });
}

function quoteName(name) { return /[(),.:;<>@\[\]\\"]/.test(name) ? `"${name.replace(/["\\]/g, "\\$&")}"` : name; }

function scheduleCheck(form) {
  clearTimeout(pendingCheck);
  pendingCheck = setTimeout(() => checkComposer(form), 250);
}

async function checkComposer(form) {
  let check;
  try {
    const response = await fetch("compose/check", { method: "POST", credentials: "same-origin", body: new URLSearchParams(new FormData(form)),
      headers: { "X-CSRF-Token": csrf, "Content-Type": "application/x-www-form-urlencoded" } });
    check = await response.json();
  } catch { return null; }
  for (const token of $$(".token", form)) {
    const field = token.closest(".recipient-field").dataset.field;
    const problem = check.invalid.find((item) => item.field === field && token.dataset.address.includes(item.text));
    token.classList.toggle("invalid", Boolean(problem));
    $(".token-problem", token).textContent = problem ? ` Invalid address: ${problem.reason}` : "";
  }
  const errors = $("#composer-errors", form);
  const messages = [...check.blocking, ...check.invalid.map((item) => `${item.text}: ${item.reason}`)];
  const noRecipients = check.blocking.some((text) => text.startsWith("No valid recipient"));
  errors.replaceChildren(...messages.filter((text) => !(noRecipients && $$(".token", form).length === 0 && text.startsWith("No valid recipient")))
    .map((text) => Object.assign(document.createElement("p"), { textContent: text })));
  $("#send-button", form).disabled = !check.canSend;
  const warning = $("#attachments-size", form);
  const tooLarge = check.blocking.find((text) => text.startsWith("The attachments"));
  warning.hidden = !tooLarge;
  warning.textContent = tooLarge ?? "";
  return check;
}

function updateBodySize(form) {
  const bytes = new TextEncoder().encode(form.elements.body.value).length;
  const note = $("#body-size", form);
  note.hidden = bytes <= 100 * 1024;
  note.textContent = note.hidden ? "" : `This message is ${Math.round(bytes / 1024)} KB. Messages over 100 KB may load slowly for the people you send it to.`;
}

async function formatSelection(body, format) {
  const start = body.selectionStart, end = body.selectionEnd, selected = body.value.slice(start, end);
  let text;
  if (format === "link") {
    const url = await askText("Link address", "https://");
    if (!url) { body.focus(); return; }
    text = `[${selected || "link text"}](${url})`;
  } else {
    const mark = format === "bold" ? "**" : "*";
    text = `${mark}${selected || (format === "bold" ? "bold text" : "italic text")}${mark}`;
  }
  body.focus();
  body.setRangeText(text, start, end, selected ? "end" : "select");
  body.dispatchEvent(new Event("input"));
}

// CO01-16: the types that go inline (the server checks the bytes again); the rest stay attachments.
const inlineImageTypes = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Files pasted or dropped into the text: images uploaded as inline images, each `![name](cid:…)` put where the caret was. */
async function insertFiles(form, body, files) {
  const images = files.filter((file) => inlineImageTypes.includes(file.type));
  const others = files.filter((file) => !images.includes(file));
  if (others.length) uploadFiles(form, others);
  for (const file of images) {
    const [start, end, text] = [body.selectionStart, body.selectionEnd, body.value];
    const [upload] = await uploadFiles(form, [file], { inline: true });
    if (!upload?.contentId) continue;
    const reference = `![${upload.name.replace(/[\\[\]]/g, "\\$&").replace(/[\r\n]+/g, " ")}](cid:${upload.contentId})`;
    // Typing meanwhile moved the caret: the image goes where it is now.
    const [from, to] = body.value === text ? [start, end] : [body.selectionStart, body.selectionEnd];
    body.focus();
    body.setRangeText(reference, from, to, "end");
    body.dispatchEvent(new Event("input", { bubbles: true }));
  }
}

/** Every `![…](cid:id)` of an inline image taken out of the text, when the image is removed from the list. */
function removeImageReferences(body, contentId) {
  const escaped = contentId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const next = body.value.replace(new RegExp(`!\\[(?:[^\\]\\\\]|\\\\.)*\\]\\(cid:${escaped}\\)`, "g"), "");
  if (next !== body.value) { body.value = next; body.dispatchEvent(new Event("input", { bubbles: true })); }
}

/** A name no file in the list has yet (two pasted screenshots are both "image.png"), so each stays its own draft file. */
function unusedName(form, name) {
  const taken = new Set($$("#compose-attachments .attachment-name", form).map((item) => item.textContent));
  if (!taken.has(name)) return name;
  const dot = name.lastIndexOf(".");
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ""];
  for (let count = 2; ; count++) { const next = `${stem} (${count})${extension}`; if (!taken.has(next)) return next; }
}

async function uploadFiles(form, files, { inline = false } = {}) {
  const list = $("#compose-attachments", form);
  const uploads = [];
  for (const file of files) {
    const item = document.createElement("li");
    item.className = "attachment";
    const fileName = inline ? unusedName(form, file.name || "image") : file.name;
    item.textContent = `Attaching ${fileName}…`;
    list.append(item);
    try {
      const headers = { "X-CSRF-Token": csrf, "Content-Type": file.type || "application/octet-stream", "X-File-Name": encodeURIComponent(fileName) };
      if (inline) headers["X-Inline-Image"] = "1";
      const response = await fetch("compose/attachments", { method: "POST", credentials: "same-origin", body: file, headers });
      if (!response.ok) throw new Error(String(response.status));
      const upload = await response.json();
      uploads.push(upload);
      item.replaceChildren();
      if (upload.contentId) item.dataset.contentId = upload.contentId;
      const name = Object.assign(document.createElement("span"), { className: "attachment-name", textContent: upload.name });
      const meta = Object.assign(document.createElement("span"), { className: "attachment-meta",
        textContent: ` ${formatSize(upload.size)}${upload.contentId ? ", inline image" : ""}` });
      const hidden = Object.assign(document.createElement("input"), { type: "hidden", name: "upload", value: upload.id });
      const remove = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Remove" });
      remove.dataset.removeAttachment = "";
      remove.setAttribute("aria-label", `Remove ${upload.name}`);
      item.append(name, meta, hidden, remove);
    } catch {
      item.textContent = `Couldn't attach ${fileName}.`;
      item.classList.add("notice-error");
    }
  }
  scheduleCheck(form);
  return uploads;
}

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1048576) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / 1048576).toFixed(1)} MB`;
}

function ask(question, confirmLabel, cancelLabel = "Cancel") {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    dialog.setAttribute("aria-labelledby", "ask-title");
    const title = Object.assign(document.createElement("h2"), { id: "ask-title", textContent: question });
    const actions = Object.assign(document.createElement("div"), { className: "dialog-actions" });
    const cancel = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: cancelLabel });
    const ok = Object.assign(document.createElement("button"), { type: "button", className: "button primary", textContent: confirmLabel });
    actions.append(cancel, ok);
    dialog.append(title, actions);
    document.body.append(dialog);
    const finish = (answer) => { dialog.close(); dialog.remove(); resolve(answer); };
    cancel.addEventListener("click", () => finish(false));
    ok.addEventListener("click", () => finish(true));
    dialog.addEventListener("cancel", () => finish(false));
    dialog.showModal();
    ok.focus();
  });
}

function askText(labelText, initial) {
  return new Promise((resolve) => {
    const dialog = document.createElement("dialog");
    const form = Object.assign(document.createElement("form"), { method: "dialog" });
    const label = Object.assign(document.createElement("label"), { htmlFor: "ask-text-input", textContent: labelText });
    const input = Object.assign(document.createElement("input"), { id: "ask-text-input", type: "url", value: initial, required: true });
    const actions = Object.assign(document.createElement("div"), { className: "dialog-actions" });
    const cancel = Object.assign(document.createElement("button"), { type: "button", className: "button", textContent: "Cancel" });
    const ok = Object.assign(document.createElement("button"), { type: "submit", className: "button primary", textContent: "Insert link" });
    actions.append(cancel, ok);
    form.append(label, input, actions);
    dialog.append(form);
    document.body.append(dialog);
    let answer = null;
    form.addEventListener("submit", () => { answer = input.value.trim(); });
    cancel.addEventListener("click", () => dialog.close());
    dialog.addEventListener("close", () => { dialog.remove(); resolve(answer); });
    dialog.showModal();
    input.focus();
    input.select();
  });
}

async function sendComposer(form, confirmed = false) {
  const check = await checkComposer(form);
  if (!check) { toast("Couldn't check the message. Is tern serve running?", { error: true }); return; }
  if (!check.canSend) { $("#composer-errors", form).focus?.(); ($(".token.invalid .token-remove", form) ?? $(".token-input", form))?.focus(); return; }
  if (!confirmed) {
    for (const question of check.confirmations) if (!(await ask(question, "Send"))) return;
  }
  const fields = new FormData(form);
  fields.set("confirmed", "1");
  const reply = await post("compose/send", fields);
  if (reply.draftId) adoptDraftId(form, reply.draftId);
  if (!reply.ok) { toast(reply.error ?? "Couldn't send message.", { error: true }); return; }
  clearInterval(form.autosave);
  const composer = form;
  const returnTo = form.elements.return.value;
  await navigate(returnTo, { focus: "thread" });
  followSend(reply, composer, returnTo);
}

// Send later (issue 36): the same checks as Send, then the message waits in the Outbox for the time
// chosen. The picker's value is the browser's local time: it goes as an ISO time with its offset.
async function scheduleComposer(form, button) {
  const fields = new FormData(form);
  fields.set("when", button.value);
  if (button.value === "picker") {
    const picked = form.elements.at.value;
    if (!picked) { toast("Choose a date and time to send it.", { error: true }); form.elements.at.focus(); return; }
    fields.set("at", new Date(picked).toISOString());
  }
  const check = await checkComposer(form);
  if (!check) { toast("Couldn't check the message. Is tern serve running?", { error: true }); return; }
  if (!check.canSend) { $("#composer-errors", form).focus?.(); ($(".token.invalid .token-remove", form) ?? $(".token-input", form))?.focus(); return; }
  for (const question of check.confirmations) if (!(await ask(question, "Schedule"))) return;
  fields.set("confirmed", "1");
  const reply = await post("compose/schedule", fields);
  if (reply.draftId) adoptDraftId(form, reply.draftId);
  if (!reply.ok) { toast(reply.error ?? "Couldn't schedule the message.", { error: true }); return; }
  clearInterval(form.autosave);
  await navigate(form.elements.return.value, { focus: "thread" });
  toast(reply.toast);
}

// Messages in their undo window from this page: leaving the page undoes them (issue 18, FR-COMP-02).
const heldInPage = new Set();
addEventListener("pagehide", () => {
  for (const email of heldInPage) {
    fetch("compose/undo", { method: "POST", keepalive: true, credentials: "same-origin", body: new URLSearchParams({ email }),
      headers: { "X-CSRF-Token": csrf, "Content-Type": "application/x-www-form-urlencoded" } }).catch(() => {});
  }
  heldInPage.clear();
});

// The undo window (FR-COMP-02), then "Sending…", "Message sent" or "Couldn't send message. Tap to retry."
function followSend(reply, composer, returnTo) {
  const reopen = async () => {
    await navigate(returnTo, { push: false, focus: "none" });
    $("#thread-pane").replaceChildren(composer);
    document.body.dataset.pane = "thread";
    if (composer.elements.draft.value) adoptDraftId(composer, composer.elements.draft.value);
    startAutosave(composer);
    $("#composer-title", composer)?.focus();
  };
  // "Tap to retry" (issue 34): the failed message goes back to its own draft, attachments included, and leaves the
  // Outbox. A message without one (sent before drafts were kept until sending) is written again as a new draft.
  const reopenFailed = async () => {
    const back = await post("compose/reopen", { email: reply.emailId });
    if (back.ok) {
      const [path, query = ""] = returnTo.split("?");
      const params = new URLSearchParams(query);
      params.delete("thread");
      params.set("compose", "draft");
      params.set("draft", back.draftId);
      await navigate(`${path}?${params}`, { focus: "none" });
      $("#composer-title")?.focus();
      return;
    }
    composer.elements.draft.value = "";
    $("#delete-draft", composer).hidden = true;
    await reopen();
  };
  const watch = () => watchOutbox(reply.emailId, reopenFailed);
  if (reply.undoSeconds > 0) {
    undoCountdown(reply.emailId, reply.undoSeconds * 1000, {
      undone: async () => { toast("Sending cancelled. The message is a draft again."); await reopen(); },
      confirmed: () => { toast("Sending…", { seconds: 3 }); watch(); },
    });
  } else {
    toast("Sending…", { seconds: 3 });
    watch();
  }
}

// The undo window's countdown. The page confirms at its end: a tab closed in the window never sends
// (the server gives it back to drafts). FR-COMP-02 "App enters background: Timer pauses. Resumes when
// app returns to foreground": hidden, the page pauses the window on the server (and says so again
// each minute, as a hidden tab's timers allow); seen again, it resumes from what was left. The
// steps run one after another, so a quick hide-and-show never resumes before its pause.
function undoCountdown(email, milliseconds, { undone, confirmed }) {
  heldInPage.add(email);
  let timer = null, shown = null, refresh = null, steps = Promise.resolve();
  const stop = () => {
    clearTimeout(timer); clearInterval(refresh); shown?.remove();
    document.removeEventListener("visibilitychange", onVisibility);
    heldInPage.delete(email);
  };
  const gone = (reply) => { stop(); toast(reply.error ?? "Not sent.", { error: true }); };
  const undo = async () => {
    stop();
    const reply = await post("compose/undo", { email });
    if (reply.ok) await undone(); else toast(reply.error, { error: true });
  };
  const run = (left) => {
    const seconds = Math.max(1, Math.ceil(left / 1000));
    shown = toast(`Sending in ${seconds} seconds.`, { action: "Undo", seconds: left / 1000, onAction: undo });
    timer = setTimeout(async () => {
      if (!heldInPage.has(email)) return;
      stop();
      const reply = await post("compose/commit", { email });
      if (reply.ok) confirmed(); else gone(reply);
    }, left);
  };
  const onVisibility = () => {
    const hidden = document.hidden;
    steps = steps.then(async () => {
      if (!heldInPage.has(email)) return;
      if (hidden) {
        clearTimeout(timer); shown?.remove(); shown = null;
        const reply = await post("compose/pause", { email });
        if (!reply.ok) return gone(reply);
        clearInterval(refresh);
        refresh = setInterval(() => { post("compose/pause", { email }).catch(() => {}); }, 60_000);
      } else {
        clearInterval(refresh);
        const reply = await post("compose/resume", { email });
        if (!reply.ok) return gone(reply);
        clearTimeout(timer); shown?.remove();
        run(reply.milliseconds);
      }
    }).catch(() => {});
  };
  document.addEventListener("visibilitychange", onVisibility);
  run(milliseconds);
}

// CO01-E2, SY07-7: a sent message's outcome comes through the event stream (the engine's retries
// included, however late), never by polling; its status is asked once when watching starts and each
// time the stream (re)connects, for an outcome that landed while no stream was open.
const sendWatchers = new Map();

function watchOutbox(emailId, reopen) {
  sendWatchers.set(String(emailId), reopen);
  checkSendStatus(String(emailId));
}

async function checkSendStatus(emailId) {
  let status;
  try { status = await (await fetch(`compose/status?email=${encodeURIComponent(emailId)}`, { credentials: "same-origin" })).json(); } catch { return; }
  sendOutcome(emailId, status.state, status.error);
}

function sendOutcome(emailId, state, error) {
  const reopen = sendWatchers.get(emailId);
  if (!reopen || (state !== "sent" && state !== "failed")) return;
  sendWatchers.delete(emailId);
  if (state === "sent") { toast("Message sent"); return; }
  toast("Couldn't send message. Tap to retry.", { error: true, seconds: 0, action: "Retry", onAction: reopen });
}

// ---- Start (last: every declaration above is initialized) --------------------------------------------
showOnline();
afterRender();
connectEvents();
fitLoadedFrames();
