"""The sanitizer's output, loaded in a real headless Chromium in an ordinary page without any CSP:
no vector runs a script, and in blocked mode none makes a request to the loopback server that
stands in for every remote host (SystemTests/vectors/xss-vectors.json, scripts/make_xss_vectors.py)."""

import pytest

from support.browser import VECTORS, Recorder, chromium, serve_recorder
from support.tern import sanitized

PRELUDE = """<!doctype html><meta charset=utf-8><title>page</title><link rel=icon href="data:,">
<script>window.__fired = [];
for (const name of ['alert', 'confirm', 'prompt', 'print']) window[name] = () => window.__fired.push(name);
</script>"""
# After load: every element gets the events a user would cause, so surviving handlers would run.
TRIGGER = """<script>
for (const element of document.querySelectorAll('body *')) {
  for (const type of ['mouseover', 'pointerenter', 'focus', 'toggle', 'animationstart', 'scroll', 'load', 'error', 'begin']) {
    try { element.dispatchEvent(new Event(type)); } catch (e) {}
  }
}
</script>"""


@pytest.fixture(scope="module")
def browser():
    driver = chromium(window_size=None, page_load_timeout=10, extra_arguments=[
        "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
        "--disable-sync", "--metrics-recording-only", "--no-default-browser-check"])
    yield driver
    driver.quit()


def sanitize(tmp_path, documents, allow_remote=False):
    files = []
    for index, html in enumerate(documents):
        path = tmp_path / f"v{index:04}.html"
        path.write_bytes(html.encode("utf-8", "surrogatepass"))
        files.append(path)
    return sanitized(files, allow_remote)


def test_vector_suite_is_large_enough():
    assert len(VECTORS) >= 300
    assert {v["category"] for v in VECTORS} >= {"script", "event-handler", "url-scheme", "css", "mxss", "remote"}


def test_no_vector_runs_script_or_loads_remote_content(browser, tmp_path):
    remote = serve_recorder(records=True)
    pages = serve_recorder()
    Recorder.requests.clear()
    base = f"http://127.0.0.1:{remote.server_address[1]}"
    documents = [v["html"].replace("{{REMOTE}}", base) for v in VECTORS]
    results = sanitize(tmp_path, documents)
    assert len(results) == len(documents)
    fired = []
    for index, (vector, result) in enumerate(zip(VECTORS, results)):
        path = f"/page/{index}"
        Recorder.pages[path] = PRELUDE + result["html"] + TRIGGER
        browser.get(f"http://127.0.0.1:{pages.server_address[1]}{path}")
        state = browser.execute_script("return [window.__fired, document.title, location.pathname]")
        if state[0] or state[1] != "page" or state[2] != path:
            fired.append((vector["category"], vector["html"], result["html"], state))
    remote.shutdown()
    pages.shutdown()
    assert not fired, "\n".join(map(str, fired[:10]))
    assert Recorder.requests == [], f"remote requests in blocked mode: {Recorder.requests[:10]}"


def test_without_the_sanitizer_the_harness_does_catch_vectors(browser):
    """The harness itself works: raw vectors fire in the same page."""
    pages = serve_recorder()
    Recorder.pages["/page/raw"] = PRELUDE + "<img src=x onerror=alert(1)><script>document.title='XSS'</script>" + TRIGGER
    browser.get(f"http://127.0.0.1:{pages.server_address[1]}/page/raw")
    state = browser.execute_script("return [window.__fired, document.title]")
    pages.shutdown()
    assert "alert" in state[0] and state[1] == "XSS"


def test_allowed_remote_images_load_but_trackers_do_not(browser, tmp_path):
    remote = serve_recorder(records=True)
    pages = serve_recorder()
    Recorder.requests.clear()
    base = f"http://127.0.0.1:{remote.server_address[1]}"
    Recorder.requests.clear()
    html = f'<p><img src="{base}/hero.png" width=600><img src="{base}/pixel.gif" width=1 height=1><div style="display:none"><img src="{base}/hidden.png"></div></p>'
    result = sanitize(tmp_path, [html], allow_remote=True)[0]
    assert result["trackersBlocked"] == 2
    Recorder.pages["/page/allowed"] = PRELUDE + result["html"]
    browser.get(f"http://127.0.0.1:{pages.server_address[1]}/page/allowed")
    browser.execute_script("return document.readyState")
    remote.shutdown()
    pages.shutdown()
    assert Recorder.requests == ["/hero.png"]


def css_tracking_page(base):
    """Issue 37's hidden-style vectors beside one ordinary remote image: a web font, backgrounds on hover, focus and
    press, `content: url()` in a pseudo-element and inline, and a background in an opened `details`."""
    return f"""<style>@font-face {{ font-family: Brand; src: url({base}/font.woff2) format("woff2"), url({base}/font.woff); }}
p.brand {{ font-family: Brand, serif; }}
a:hover {{ background: url({base}/hover.png); }}
a:focus {{ background-image: url({base}/focus.png); }}
td:active {{ background: url({base}/active.png); }}
p.c::after {{ content: url({base}/content.png); }}
details[open] p {{ background: url({base}/open.png); }}
</style><p class="brand">Brand text</p><p class="c" style="content: url({base}/inline-content.png)">c</p>
<table><tr><td id="cell">press here</td></tr></table><details><summary>More</summary><p>inside</p></details>
<p><a id="link" href="https://example.org/">a link</a> <img src="{base}/hero.png" width="600"></p>"""


def interact(browser):
    """What a reader does: point at the link, focus it, press on the cell, open the details."""
    from selenium.webdriver.common.action_chains import ActionChains
    link = browser.find_element("xpath", "//a[normalize-space()='a link']")
    ActionChains(browser).move_to_element(link).perform()
    browser.execute_script("arguments[0].focus()", link)
    cell = browser.find_element("xpath", "//td[normalize-space()='press here']")
    ActionChains(browser).click_and_hold(cell).perform()
    ActionChains(browser).release(cell).perform()
    browser.find_element("xpath", "//summary[normalize-space()='More']").click()
    browser.execute_script("return document.fonts.ready.then(() => true)")
    import time
    time.sleep(0.5)


def test_with_images_allowed_fonts_and_interaction_css_load_nothing(browser, tmp_path):
    remote = serve_recorder(records=True)
    pages = serve_recorder()
    base = f"http://127.0.0.1:{remote.server_address[1]}"
    # The harness sees these loads when nothing removes them.
    Recorder.requests.clear()
    Recorder.pages["/page/raw-css"] = PRELUDE + css_tracking_page(base).replace('<details>', '<details open>')
    browser.get(f"http://127.0.0.1:{pages.server_address[1]}/page/raw-css")
    interact(browser)
    seen = set(Recorder.requests)
    assert {"/hero.png", "/font.woff2", "/hover.png", "/active.png", "/content.png", "/inline-content.png"} <= seen, seen
    # Sanitized with remote images allowed: the image loads, nothing else does.
    result = sanitize(tmp_path, [css_tracking_page(base)], allow_remote=True)[0]
    assert result["trackerKinds"] == {"images": 0, "css": 6, "fonts": 1}, result
    assert result["trackersBlocked"] == 7 and result["trackerHosts"] == ["127.0.0.1"]
    Recorder.requests.clear()
    Recorder.pages["/page/allowed-css"] = PRELUDE + result["html"]
    browser.get(f"http://127.0.0.1:{pages.server_address[1]}/page/allowed-css")
    interact(browser)
    remote.shutdown()
    pages.shutdown()
    assert Recorder.requests == ["/hero.png"], Recorder.requests
