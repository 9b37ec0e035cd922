// Issue 36: the search box's operator suggestions and its error state. The page works without this
// file (the <datalist> then offers the operators from an empty box); with it, the suggestions follow
// the word being typed: "budget fr" offers "budget from:". The chips and the error are the server's,
// in the list pane; this marks the input invalid while the list pane says the search can't be read.

const input = document.getElementById("search-input");
const list = document.getElementById("search-operators");

if (input && list) {
  // The server's options, as written: [value, label].
  const operators = [...list.options].map((option) => [option.value, option.label]);

  function suggest() {
    const text = input.value;
    const start = text.search(/\S*$/);
    const typed = text.slice(start).toLowerCase();
    const before = text.slice(0, start);
    const matching = typed.startsWith("-")
      ? operators.filter(([value]) => value.startsWith(typed.slice(1))).map(([value, label]) => ["-" + value, "Not: " + label])
      : operators.filter(([value]) => value.startsWith(typed));
    // Only words that could still become an operator are offered one: a finished operator is left alone.
    const offered = typed.includes(":") && !matching.some(([value]) => value.length > typed.length) ? [] : matching;
    list.replaceChildren(...offered.map(([value, label]) => Object.assign(document.createElement("option"), { value: before + value, label })));
  }

  function markValidity() {
    const error = document.getElementById("search-error");
    const unreadable = Boolean(error && error.textContent.trim());
    if (unreadable) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", "search-error");
    } else {
      input.removeAttribute("aria-invalid");
      input.removeAttribute("aria-describedby");
    }
  }

  input.addEventListener("input", suggest);
  suggest();
  markValidity();
  // app.js replaces the list pane when a search runs: look again each time.
  const panes = document.querySelector("main.panes");
  if (panes) new MutationObserver(markValidity).observe(panes, { childList: true, subtree: true });
}
