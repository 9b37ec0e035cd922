// Issue 36: desktop notifications of new Inbox mail through the browser's Notification API, once the
// person turns them on in Settings. The choice (off, sender and subject, or "New mail" only) is kept in
// this browser (localStorage), beside the browser's own permission, which is per browser too. The page
// hears of arrivals on the change feed (`newmessages`: unread Inbox messages only, so mail already read
// elsewhere makes no notice); several at once make one grouped notice. A click opens the thread.

const STORAGE_KEY = "tern-notifications";
const CHOICES = ["off", "full", "private"];

export function notificationChoice() {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return CHOICES.includes(value) ? value : "off";
  } catch {
    return "off";
  }
}

function setChoice(value) {
  try { localStorage.setItem(STORAGE_KEY, value); } catch { /* private browsing: nothing kept */ }
}

// `info`: the event's data: `count` and `messages` (JSON: thread, from, subject). `open(url)`: how the
// page goes to an app path.
export function notifyNewMail(info, open) {
  const choice = notificationChoice();
  if (choice === "off" || !("Notification" in window) || Notification.permission !== "granted") return null;
  let messages = [];
  try { messages = JSON.parse(info.messages ?? "[]"); } catch { messages = []; }
  if (messages.length === 0) return null;
  const single = messages.length === 1;
  const title = choice === "private" ? "New mail" : single ? messages[0].from : `${messages.length} new messages`;
  const body = choice === "private"
    ? (single ? "" : `${messages.length} new messages`)
    : single ? messages[0].subject : messages.slice(0, 3).map((m) => `${m.from}: ${m.subject}`).join("\n");
  // One tag: a later arrival replaces the notice instead of stacking another.
  const notice = new Notification(title, { body, tag: "tern-new-mail", icon: "/assets/icon.svg" });
  const target = single && messages[0].thread ? `mail?thread=${encodeURIComponent(messages[0].thread)}` : "mail";
  notice.addEventListener("click", () => {
    window.focus();
    open(target);
    notice.close();
  });
  return notice;
}

// The Settings section: the choice, and the browser's permission asked for when the person turns them on.
function settingsSection() {
  const section = document.getElementById("notifications-settings");
  if (!section) return;
  const select = section.querySelector("select");
  const status = section.querySelector("[data-notification-status]");
  const supported = "Notification" in window;
  section.querySelector("[data-needs-script]")?.setAttribute("hidden", "");
  for (const element of section.querySelectorAll("[data-with-script]")) element.hidden = false;
  const describe = () => {
    if (!supported) return "This browser cannot show notifications.";
    if (notificationChoice() === "off") return "Notifications are off.";
    if (Notification.permission === "denied") return "The browser blocks notifications for Tern: allow them in the browser's site settings.";
    if (Notification.permission !== "granted") return "The browser has not allowed notifications yet.";
    return notificationChoice() === "private" ? "On: “New mail” only." : "On: sender and subject.";
  };
  select.value = notificationChoice();
  status.textContent = describe();
  section.querySelector("form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setChoice(select.value);
    if (supported && select.value !== "off" && Notification.permission === "default") await Notification.requestPermission();
    status.textContent = describe();
  });
}

settingsSection();
