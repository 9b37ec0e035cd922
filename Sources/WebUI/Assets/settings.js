// Settings, issue 36: offers Tern as the browser's handler for mailto: links
// (navigator.registerProtocolHandler). The browser asks the person to confirm; a link then opens
// Tern's composer prefilled, and nothing is sent until they press Send.
const button = document.getElementById("register-mailto");
const status = document.getElementById("mailto-status");
if (button && status) {
  if (typeof navigator.registerProtocolHandler === "function") {
    button.hidden = false;
    button.addEventListener("click", () => {
      try {
        navigator.registerProtocolHandler("mailto", button.dataset.handler);
        status.textContent = "Asked: confirm in your browser to let Tern open email links.";
      } catch (error) {
        status.textContent = `Your browser refused: ${error.message}`;
      }
    });
  } else {
    status.textContent = "This browser can't hand email links to a web app.";
  }
}
