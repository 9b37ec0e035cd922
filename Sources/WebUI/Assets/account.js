// Issue 35's "Add account": the form posts as usual without script. With it, the same request asks
// for the setup's steps as lines of JSON (application/x-ndjson) read as they arrive, so the page says
// what Tern is doing (the list is a live region) without polling. Every word comes from the server.

const csrf = document.querySelector('meta[name="csrf-token"]')?.content ?? "";
const form = document.getElementById("account-setup");

function stepItem(step) {
  return document.querySelector(`#setup-steps li[data-step="${CSS.escape(step ?? "")}"]`);
}

function apply(line) {
  const progress = document.getElementById("setup-progress");
  switch (line.type) {
    case "step": {
      const item = stepItem(line.step);
      if (!item) return;
      item.dataset.state = line.state;
      item.querySelector(".step-state").textContent = line.text;
      break;
    }
    case "detail": {
      const item = stepItem(line.step);
      if (item) item.querySelector(".step-detail").textContent = line.text;
      break;
    }
    case "servers": {
      // "Edit server settings" shows what was found, to correct when a later step fails.
      for (const name of ["imap-host", "imap-port", "imap-security", "smtp-host", "smtp-port", "smtp-security", "username", "sign-in"]) {
        const field = form.elements.namedItem(name);
        if (field && line[name] !== undefined) field.value = line[name];
      }
      document.getElementById("setup-found").textContent = line.text;
      break;
    }
    case "failed": {
      const error = document.getElementById("setup-error");
      error.textContent = line.text;
      error.hidden = false;
      if (line.step === "looking-up" || line.step === "connecting" || line.step === "signing-in" || line.step === "checking-sending") {
        document.getElementById("server-settings").open = true;
      }
      const field = line.step === "signing-in" || line.step === "checking-sending" ? form.elements.namedItem("password") : null;
      field?.focus();
      break;
    }
    case "sign-in": {
      // Issue 35: the servers take the provider's sign-in: its section (client id, button) is shown.
      const section = document.getElementById(`setup-oauth-${line.provider}`);
      const error = document.getElementById("setup-error");
      error.textContent = line.text;
      error.hidden = false;
      const choice = form.elements.namedItem("sign-in");
      if (choice) choice.value = line.provider;
      if (section) {
        section.hidden = false;
        (section.querySelector("input") ?? section.querySelector("button"))?.focus();
      }
      break;
    }
    case "certificate": {
      // Issue 35: the certificate to judge; "Trust this certificate" sends the form again with it pinned.
      const section = document.getElementById("setup-certificate");
      for (const name of ["place", "subject", "issuer", "not-before", "not-after", "fingerprint"]) {
        section.querySelector(`[data-field="${name}"]`).textContent = line[name];
      }
      section.querySelector('button[name="trusted-certificate"]').value = line.value;
      section.hidden = false;
      break;
    }
    case "done": {
      const found = document.getElementById("setup-found");
      found.textContent = line.text;
      window.location.assign(line.location);
      break;
    }
  }
  progress.hidden = false;
}

function reset() {
  for (const item of document.querySelectorAll("#setup-steps li")) {
    item.dataset.state = "waiting";
    item.querySelector(".step-state").textContent = "not started";
    item.querySelector(".step-detail").textContent = "";
  }
  const error = document.getElementById("setup-error");
  error.hidden = true;
  error.textContent = "";
  document.getElementById("setup-found").textContent = "";
  document.getElementById("setup-certificate").hidden = true;
  for (const section of document.querySelectorAll(".oauth-sign-in")) section.hidden = true;
  document.getElementById("setup-progress").hidden = false;
}

// A certificate trusted on this screen stays trusted for the next attempts (IMAP's, then SMTP's).
function keepTrusted(submitter) {
  if (submitter?.name !== "trusted-certificate" || !submitter.value) return;
  const fields = form.querySelectorAll('input[type="hidden"][name="trusted-certificate"]');
  if ([...fields].some((input) => input.value === submitter.value)) return;
  const input = document.createElement("input");
  input.type = "hidden";
  input.name = "trusted-certificate";
  input.value = submitter.value;
  form.append(input);
}

async function submit(event) {
  // Issue 35: "Sign in with …" leaves for the provider's page: an ordinary navigation.
  if (event.submitter?.name === "sign-in-with") return;
  event.preventDefault();
  keepTrusted(event.submitter);
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  reset();
  try {
    const response = await fetch(form.action, {
      method: "POST", credentials: "same-origin", body: new URLSearchParams(new FormData(form)),
      headers: { "X-CSRF-Token": csrf, "Accept": "application/x-ndjson", "Content-Type": "application/x-www-form-urlencoded" },
    });
    if (!response.ok || !response.body) throw new Error(`${response.status}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let pending = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pending += value;
      let end;
      while ((end = pending.indexOf("\n")) >= 0) {
        const text = pending.slice(0, end);
        pending = pending.slice(end + 1);
        if (text.trim()) apply(JSON.parse(text));
      }
    }
  } catch {
    apply({ type: "failed", step: "", text: "Tern could not be reached. Is tern serve still running?" });
  } finally {
    button.disabled = false;
  }
}

if (form) form.addEventListener("submit", submit);
// Issue 35: back from the provider's sign-in, the setup goes on by itself.
if (form?.hasAttribute("data-autostart")) form.requestSubmit();
